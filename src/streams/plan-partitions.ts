import { addDays, daysBetween } from "../time/calendar.js";
import { succeededCheckpoints } from "../warehouse/stream-state.js";
import type { RunnerDeps } from "./run-partition.js";
import type { Partition, Stream } from "./stream.js";

export interface DayRange {
  /** First day, inclusive (default: start_date). */
  readonly from?: string;
  /** Last day, inclusive (default: yesterday UTC). */
  readonly to?: string;
}

/** Partitions planned at a time: what a run holds of a stream's plan. */
export const PLAN_SLICE = 1_000;

/**
 * The partitions a run syncs, in slices of at most PLAN_SLICE, made as they are asked for. With
 * an explicit range: every partition in it. Otherwise (incremental): daily partitions never
 * synced, plus the last `lookback_days` days again for late and restated data; partitions
 * without a day always run (they keep their own cursors).
 */
export async function* planPartitions(
  deps: Pick<RunnerDeps, "db" | "config" | "today">,
  stream: Stream,
  range: DayRange,
): AsyncGenerator<readonly Partition[]> {
  const { db, config, today } = deps;
  const yesterday = addDays(today, -1);
  const explicit = range.from !== undefined || range.to !== undefined;
  const lookbackStart = addDays(yesterday, 1 - config.lookback_days);
  const candidates = await stream.partitions({
    db,
    config,
    today,
    days: daysBetween(range.from ?? config.start_date, range.to ?? yesterday),
    checkpoints: (keys) => succeededCheckpoints(db, stream.name, keys),
  });
  const due = async (slice: readonly Partition[]): Promise<readonly Partition[]> => {
    if (explicit) return slice;
    const settled = (p: Partition) => p.day !== undefined && p.day < lookbackStart;
    const synced = await succeededCheckpoints(
      db,
      stream.name,
      slice.filter(settled).map((p) => p.key),
    );
    return slice.filter((p) => !settled(p) || !synced.has(p.key));
  };
  let slice: Partition[] = [];
  for await (const partition of candidates) {
    slice.push(partition);
    if (slice.length < PLAN_SLICE) continue;
    const planned = await due(slice);
    slice = [];
    if (planned.length > 0) yield planned;
  }
  const planned = await due(slice);
  if (planned.length > 0) yield planned;
}
