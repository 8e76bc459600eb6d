import { Queue, Worker } from "bullmq";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  followRun,
  nextPollMs,
  type ProgressOutput,
  WorkerWatch,
} from "../../src/cli/follow-run.js";
import { MovingRate } from "../../src/cli/moving-rate.js";
import { progressLine } from "../../src/cli/progress-line.js";
import { bullConnection } from "../../src/jobs/etl-queue.js";
import type { RunJobData } from "../../src/jobs/job-types.js";
import { deleteKeysWithPrefix, REDIS_URL, uniquePrefix } from "../helpers/redis.js";
import { until } from "../helpers/until.js";

const prefix = uniquePrefix("follow_run");
let queue: Queue;

beforeAll(() => {
  queue = new Queue("etl", { connection: bullConnection(REDIS_URL), prefix });
});

afterAll(async () => {
  await queue.close();
  await deleteKeysWithPrefix(prefix);
});

const quiet: ProgressOutput = {
  line: () => undefined,
  progress: () => undefined,
  interactive: false,
};

describe("following a run", () => {
  // Far longer than the test may take: only the quicker polls of a run's end can return in time.
  const SLOW_POLL_MS = 600_000;

  it.each(["completed", "failed"] as const)(
    "sees the run job %s soon once every partition planned is done",
    async (end) => {
      // Every stream planned (there is none), and every planned partition (none) done.
      const data: Partial<RunJobData> = { kind: "backfill", streams: [], planned: 0 };
      const job = await queue.add("run", data);
      const polled = followRun(queue, job.id ?? "", quiet, SLOW_POLL_MS);
      const worker = new Worker(
        "etl",
        () =>
          end === "failed"
            ? Promise.reject(new Error("planning failed"))
            : Promise.resolve({ succeeded: 0, failed: 0 }),
        { connection: bullConnection(REDIS_URL), prefix, autorun: false },
      );
      try {
        // Once the first poll has seen the run unfinished, the worker ends it.
        await new Promise((resolve) => setTimeout(resolve, 500));
        void worker.run();
        expect(await polled).toBe(end === "completed");
      } finally {
        await worker.close();
      }
    },
    30_000,
  );
});

describe("following a run no worker takes", () => {
  /** The watch's looks on a clock the test steps: a look every 5 s, a grace of 10 s. */
  const T0 = 1_800_000_000_000;

  it("says when the last worker went away, with what is left of the run, once past its grace", async () => {
    const lines: string[] = [];
    const watch = new WorkerWatch(queue, { ...quiet, line: (text) => lines.push(text) });
    const worker = new Worker("etl", () => Promise.resolve(), {
      connection: bullConnection(REDIS_URL),
      prefix,
    });
    try {
      await worker.waitUntilReady();
      await watch.look(T0, 5);
      await worker.close();
      // Its connections leave Redis's client list as they close.
      await until(async () => (await queue.getWorkersCount()) === 0);
      // Not yet looked again, then seen gone, then gone 5 s, within the grace: nothing said.
      await watch.look(T0 + 4_999, 5);
      await watch.look(T0 + 5_000, 5);
      await watch.look(T0 + 10_000, 5);
      expect(lines).toEqual([]);
      await watch.look(T0 + 15_000, 5);
      expect(lines).toEqual([
        expect.stringMatching(
          /^the last worker went away with 5 partitions of this run left: start one with `etl worker`/,
        ),
      ]);
      // Said once.
      await watch.look(T0 + 60_000, 5);
      expect(lines).toHaveLength(1);
    } finally {
      await worker.close();
    }
  });

  it("says that no worker runs when none was seen, and when one comes back", async () => {
    const lines: string[] = [];
    const watch = new WorkerWatch(queue, { ...quiet, line: (text) => lines.push(text) });
    await watch.look(T0, 3);
    await watch.look(T0 + 10_000, 3);
    expect(lines).toEqual([
      expect.stringMatching(/^no worker is running, so nothing takes this run: start one/),
    ]);
    const worker = new Worker("etl", () => Promise.resolve(), {
      connection: bullConnection(REDIS_URL),
      prefix,
    });
    try {
      await worker.waitUntilReady();
      await watch.look(T0 + 15_000, 3);
      expect(lines.at(-1)).toBe("1 worker(s) running again: the run goes on");
    } finally {
      await worker.close();
    }
  });
});

describe("the wait between looks at a run", () => {
  const POLL = 200;

  it("is the poll interval while partitions are still being planned, or the pace is unknown", () => {
    expect(nextPollMs({ pollMs: POLL, rate: 200, done: 900, total: null })).toBe(POLL);
    expect(nextPollMs({ pollMs: POLL, rate: null, done: 0, total: 1_000 })).toBe(POLL);
    expect(nextPollMs({ pollMs: POLL, rate: 0, done: 0, total: 1_000 })).toBe(POLL);
  });

  it("shortens to when the last partitions should be done, at the recent pace", () => {
    // 200 per second: the last 10 in 50 ms.
    expect(nextPollMs({ pollMs: POLL, rate: 200, done: 1_000, total: 1_010 })).toBe(50);
    expect(nextPollMs({ pollMs: POLL, rate: 200, done: 500, total: 1_000 })).toBe(POLL);
    // All done but the run still open (a worker that died as it ended): the usual pace.
    expect(nextPollMs({ pollMs: POLL, rate: 200, done: 1_000, total: 1_000 })).toBe(POLL);
    // Never busier than the end's own quick polls.
    expect(nextPollMs({ pollMs: POLL, rate: 200, done: 1_000, total: 1_001 })).toBe(20);
  });
});

describe("the progress line", () => {
  it("gives a floor and no ETA while streams are still being counted", () => {
    const line = progressLine({
      done: 3,
      total: null,
      failed: 0,
      rate: 12,
      doing: "planning 2 of 5 streams",
    });
    expect(line).toBe(
      "[........................] 3/? partitions, 12.0/s, ETA -, planning 2 of 5 streams",
    );
  });

  it("gives no rate nor ETA before the pace is measured, then the ETA from the recent rate", () => {
    const snapshot = { done: 100, total: 400, failed: 2, doing: "5 streams planned" };
    expect(progressLine({ ...snapshot, rate: null })).toBe(
      "[######..................] 100/400 partitions, 2 failed, -/s, ETA -, 5 streams planned",
    );
    expect(progressLine({ ...snapshot, rate: 0.1 })).toContain("0.1/s, ETA 50:00,");
    expect(progressLine({ ...snapshot, rate: 0.05 })).toContain("ETA 1:40:00,");
  });
});

describe("the recent pace", () => {
  it("is unknown for the first seconds, then follows the last minute, not the start", () => {
    const rate = new MovingRate();
    // A quick start: 500 partitions in the first second.
    rate.add(0, 0);
    rate.add(1_000, 500);
    expect(rate.perSecond()).toBeNull();
    // Then 1 per second for two minutes.
    for (let s = 2; s <= 121; s++) rate.add(s * 1_000, 500 + (s - 1));
    expect(rate.perSecond()).toBeCloseTo(1, 1);
  });
});
