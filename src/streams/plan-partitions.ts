import { subHours } from "date-fns/subHours";
import { addDays, daysBetween } from "../time/calendar.js";
import {
  failedPartitions,
  lastSuccesses,
  succeededCheckpoints,
} from "../warehouse/stream-state.js";
import { catalogueArtistLinks, trackedArtistIds } from "../warehouse/tracked-artists.js";
import type { RunnerDeps } from "./run-partition.js";
import type { Partition, Stream } from "./stream.js";

export interface DayRange {
  /** First day, inclusive (default: start_date). */
  readonly from?: string;
  /** Last day, inclusive (default: yesterday UTC). */
  readonly to?: string;
}

export interface PlanOptions {
  /**
   * Only the partitions that failed for good (no job will attempt them again), within the range
   * (`etl retry-failed`).
   */
  readonly failedOnly?: boolean;
  /** The artists per-artist streams are planned for (default: artist_stats.artists). */
  readonly trackedArtistIds?: () => Promise<readonly number[]>;
}

/** Partitions planned at a time: what a run holds of a stream's plan. */
export const PLAN_SLICE = 1_000;

/**
 * The partitions a run syncs, in slices of at most PLAN_SLICE, made as they are asked for. With
 * an explicit range: every partition in it. Otherwise (incremental): daily partitions never
 * synced, plus those of the family's lookback days again for late and restated data, once their
 * last success is `refetch_after_hours` old; partitions without a day always run (they keep their
 * own cursors). A partition that failed and is no longer planned (an artist no longer tracked, a
 * day before start_date) is not retried: its failure stays in etl.stream_state.
 */
export async function* planPartitions(
  deps: Pick<RunnerDeps, "db" | "config" | "today">,
  stream: Stream,
  range: DayRange,
  options: PlanOptions = {},
): AsyncGenerator<readonly Partition[]> {
  const { db, config, today } = deps;
  const failed = options.failedOnly ? await failedPartitions(db, stream.name) : null;
  if (failed?.size === 0) return;
  const yesterday = addDays(today, -1);
  const explicit = range.from !== undefined || range.to !== undefined;
  const lookback = config.lookback[stream.family];
  const lookbackStart = addDays(yesterday, 1 - lookback.days);
  const refetchBefore = subHours(Date.now(), lookback.refetch_after_hours).getTime();
  const candidates = await stream.partitions({
    db,
    config,
    today,
    days: daysBetween(range.from ?? config.start_date, range.to ?? yesterday),
    checkpoints: (keys) => succeededCheckpoints(db, stream.name, keys),
    trackedArtistIds: options.trackedArtistIds ?? (() => trackedArtistIds(db)),
    catalogueArtistLinks: () => catalogueArtistLinks(db),
  });
  const due = async (slice: readonly Partition[]): Promise<readonly Partition[]> => {
    if (failed) return slice.filter((p) => failed.has(p.key));
    if (explicit) return slice;
    const daily = slice.filter((p) => p.day !== undefined);
    const succeeded = await lastSuccesses(
      db,
      stream.name,
      daily.map((p) => p.key),
    );
    const fresh = (p: Partition) => {
      const at = succeeded.get(p.key);
      if (p.day === undefined || at === undefined) return false;
      return p.day < lookbackStart || at.getTime() > refetchBefore;
    };
    return slice.filter((p) => !fresh(p));
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
