import pLimit from "p-limit";
import { describe, expect, it } from "vitest";
import { PartitionLanes } from "../../src/streams/partition-lanes.js";

/** Loads that end when the test says: what started, what runs, the most that ran at once. */
function controlledLoads() {
  const started: string[] = [];
  const running = new Map<string, { end: () => void; fail: (error: Error) => void }>();
  let most = 0;
  const load = (name: string) => () =>
    new Promise<string>((resolve, reject) => {
      started.push(name);
      running.set(name, {
        end: () => (running.delete(name), resolve(name)),
        fail: (error) => (running.delete(name), reject(error)),
      });
      most = Math.max(most, running.size);
    });
  const end = (name: string) => running.get(name)?.end();
  return { started, running, load, end, most: () => most };
}

/** Lets every promise callback that can run, run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe("PartitionLanes", () => {
  it("runs one partition's loads one at a time, in the order added, the others beside them", async () => {
    const loads = controlledLoads();
    const lanes = new PartitionLanes<string>(pLimit(3));
    for (const name of ["a1", "b1", "a2", "c1", "a3", "b2"])
      lanes.add(name[0] ?? "", loads.load(name));
    await settle();
    expect(loads.started).toEqual(["a1", "b1", "c1"]);
    loads.end("a1");
    await settle();
    expect(loads.started).toEqual(["a1", "b1", "c1", "a2"]);
    loads.end("b1");
    loads.end("a2");
    await settle();
    expect(loads.started).toEqual(["a1", "b1", "c1", "a2", "b2", "a3"]);
    for (const name of ["c1", "b2", "a3"]) loads.end(name);
    expect((await lanes.settledTo(0)).sort()).toEqual(["a1", "a2", "a3", "b1", "b2", "c1"]);
    expect(loads.most()).toBe(3);
  });

  it("gives each result once, when no more than the loads asked for are left", async () => {
    const loads = controlledLoads();
    const lanes = new PartitionLanes<string>(pLimit(4));
    for (const name of ["a", "b", "c", "d"]) lanes.add(name, loads.load(name));
    await settle();
    let taken: string[] | undefined;
    void lanes.settledTo(2).then((results) => (taken = results));
    loads.end("b");
    await settle();
    expect(taken).toBeUndefined();
    loads.end("d");
    await settle();
    expect(taken?.sort()).toEqual(["b", "d"]);
    loads.end("a");
    loads.end("c");
    expect((await lanes.settledTo(0)).sort()).toEqual(["a", "c"]);
    expect(await lanes.settledTo(0)).toEqual([]);
  });

  it("starts nothing more after a load failed, and throws its error once the others settled", async () => {
    const loads = controlledLoads();
    const lanes = new PartitionLanes<string>(pLimit(2));
    for (const name of ["a1", "b1", "a2", "c1"]) lanes.add(name[0] ?? "", loads.load(name));
    await settle();
    let outcome: unknown;
    void lanes.settledTo(3).then(
      (results) => (outcome = results),
      (error: unknown) => (outcome = error),
    );
    loads.running.get("a1")?.fail(new Error("a1 failed"));
    await settle();
    expect(outcome).toBeUndefined();
    loads.end("b1");
    await settle();
    expect(outcome).toEqual(new Error("a1 failed"));
    expect(loads.started).toEqual(["a1", "b1"]);
  });
});
