import type { Stream } from "./stream.js";

/**
 * For each of `streams`, the ones among them it is planned after (`Stream.after`). A dependency
 * left out of the run (`--only`) is not waited for: what it wrote before is what is read.
 */
export function dependenciesWithin(streams: readonly Stream[]): ReadonlyMap<string, string[]> {
  const names = new Set(streams.map((s) => s.name));
  return new Map(
    streams.map((s) => [s.name, (s.after ?? []).filter((name) => names.has(name))] as const),
  );
}

/**
 * The run's streams in the order to plan them: each after those it waits for, in waves (every
 * stream that waits for nothing, then those that wait only for the first wave...), and within a
 * wave the streams others wait for first, so their partitions start first. Throws on a cycle.
 */
export function planningOrder(streams: readonly Stream[]): Stream[] {
  const after = dependenciesWithin(streams);
  const awaited = awaitedStreams(streams);
  const order: Stream[] = [];
  const placed = new Set<string>();
  while (order.length < streams.length) {
    const wave = streams.filter(
      (s) => !placed.has(s.name) && (after.get(s.name) ?? []).every((name) => placed.has(name)),
    );
    if (wave.length === 0) {
      const left = streams.filter((s) => !placed.has(s.name)).map((s) => s.name);
      throw new Error(`streams wait for each other in a cycle: ${left.join(", ")}`);
    }
    order.push(
      ...wave.filter((s) => awaited.has(s.name)),
      ...wave.filter((s) => !awaited.has(s.name)),
    );
    for (const s of wave) placed.add(s.name);
  }
  return order;
}

/** The names of the run's streams that some other stream of the run waits for. */
export function awaitedStreams(streams: readonly Stream[]): ReadonlySet<string> {
  return new Set([...dependenciesWithin(streams).values()].flat());
}
