import type { Stream } from "../../streams/stream.js";

/** How a run's streams wait for each other: computed once per run. */
export interface RunGraph {
  /**
   * The streams in the order to plan them: each after those it waits for, in waves (every stream
   * that waits for nothing, then those that wait only for the first wave...), and within a wave
   * the streams others wait for first, so their partitions start first.
   */
  readonly order: readonly Stream[];
  /**
   * For each stream, the ones of the run it is planned after (`Stream.after`). A dependency left
   * out of the run (`--only`) is not waited for: what it wrote before is what is read.
   */
  readonly after: ReadonlyMap<string, readonly string[]>;
  /** The streams of the run that some other stream of the run waits for. */
  readonly awaited: ReadonlySet<string>;
}

/** The run's graph of `streams`. Throws on a cycle. */
export function runGraph(streams: readonly Stream[]): RunGraph {
  const names = new Set(streams.map((s) => s.name));
  const after = new Map(
    streams.map((s) => [s.name, (s.after ?? []).filter((name) => names.has(name))] as const),
  );
  const awaited = new Set([...after.values()].flat());
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
  return { order, after, awaited };
}
