import { describe, expect, it } from "vitest";
import { STREAMS } from "../../src/streams/registry.js";
import type { Stream } from "../../src/streams/stream.js";
import { runGraph } from "../../src/runner/plan/stream-dependencies.js";

const planningOrder = (streams: readonly Stream[]) => runGraph(streams).order;

const PER_ARTIST = STREAMS.filter((s) => s.after?.includes("artist_stats_artists"));

function stream(name: string, after?: string[]): Stream {
  return { ...STREAMS[0], name, after } as Stream;
}

describe("stream dependencies", () => {
  it("name only streams of the registry", () => {
    const names = new Set(STREAMS.map((s) => s.name));
    const unknown = STREAMS.flatMap((s) => (s.after ?? []).filter((name) => !names.has(name)));
    expect(unknown).toEqual([]);
  });

  it("plan the registry in waves: the catalogue's artists first, the tracked artists next, then who reads them", () => {
    const order = planningOrder(STREAMS).map((s) => s.name);
    expect(order[0]).toBe("artists");
    expect(PER_ARTIST.length).toBeGreaterThanOrEqual(9);
    const tracked = order.indexOf("artist_stats_artists");
    // Every stream that waits for nothing is planned before the first that waits.
    expect(
      order.slice(0, tracked).every((name) => !STREAMS.find((s) => s.name === name)?.after),
    ).toBe(true);
    for (const s of PER_ARTIST) expect(order.indexOf(s.name)).toBeGreaterThan(tracked);
    expect(new Set(order).size).toBe(STREAMS.length);
  });

  it("wait only for streams of the same run", () => {
    const run = STREAMS.filter((s) => s.family === "artist_stats");
    const { after, awaited, order } = runGraph(run);
    expect(after.get("artist_stats_artists")).toEqual([]);
    expect(after.get("artist_stats_urls")).toEqual(["artist_stats_artists"]);
    expect([...awaited]).toEqual(["artist_stats_artists"]);
    expect(order[0]?.name).toBe("artist_stats_artists");
  });

  it("puts the streams others wait for first within a wave, and refuses a cycle", () => {
    const order = planningOrder([stream("a"), stream("b"), stream("c", ["b"])]);
    expect(order.map((s) => s.name)).toEqual(["b", "a", "c"]);
    expect(() => planningOrder([stream("x", ["y"]), stream("y", ["x"])])).toThrow(/cycle: x, y/);
  });
});
