import { subHours } from "date-fns/subHours";
import { addDays, daysBetween } from "../../time/calendar.js";
import {
  failedPartitions,
  lastSuccesses,
  succeededCheckpoints,
} from "../../warehouse/stream-state.js";
import {
  type CatalogueArtistLink,
  catalogueArtistLinks,
  trackedArtistIds,
} from "../../warehouse/artist-links.js";
import type { EtlConfig } from "../../config/etl-config-schema.js";
import type { RunnerDeps } from "../attempt-record.js";
import type { PlanContext, Stream } from "../../streams/stream.js";
import type { Partition } from "../../streams/partition.js";

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
  /** With failedOnly: failures no retry can cure too (by default they are left out). */
  readonly permanentToo?: boolean;
  /**
   * A scheduled run: sync-sized, its daily partitions only those of the lookback. Older days
   * never synced (a `start_date` far back, a worker stopped for longer than the lookback) are
   * left to a backfill, which the worker's start-up line and `etl status` recommend: a schedule
   * that carried them would hold hundreds of days at its priority, ahead of any backfill.
   */
  readonly lookbackOnly?: boolean;
  /** The artists per-artist streams are planned for (default: artist_stats.artists). */
  readonly trackedArtistIds?: () => Promise<readonly number[]>;
  /**
   * The catalogue's links the tracked artists are found from (default: catalogue.artists): a
   * plan's, asked of the upstream before the run stores them.
   */
  readonly catalogueArtistLinks?: () => Promise<readonly CatalogueArtistLink[]>;
  /**
   * The days daily partitions cover, in the order to plan them, instead of the range's (a run
   * plans one day at a time, newest first). The range still says what is explicit.
   */
  readonly days?: readonly string[];
  /** Only the candidates with a day (true) or only those without (false); default every one. */
  readonly dated?: boolean;
  /** Candidates to pass over first: those a run planned before (see PlanSlice.candidates). */
  readonly skip?: number;
  /** Candidates per slice (default PLAN_SLICE). */
  readonly sliceSize?: number;
}

/** One slice of a plan: the partitions due, and how many candidates were looked at for them. */
export interface PlanSlice {
  readonly partitions: readonly Partition[];
  /**
   * Candidates the slice covers, due or not: what a run counts to resume its plan, since which
   * of them are due can change between two looks (a partition succeeding meanwhile).
   */
  readonly candidates: number;
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
  for await (const slice of planSlices(deps, stream, range, options)) {
    if (slice.partitions.length > 0) yield slice.partitions;
  }
}

/**
 * planPartitions, slice by slice with the candidates each covers: a slice may have no partition
 * due at all.
 */
export async function* planSlices(
  deps: Pick<RunnerDeps, "db" | "config" | "today">,
  stream: Stream,
  range: DayRange,
  options: PlanOptions = {},
): AsyncGenerator<PlanSlice> {
  const { db, config, today } = deps;
  const failed = options.failedOnly
    ? await failedPartitions(db, stream.name, options.permanentToo ?? false)
    : null;
  if (failed?.size === 0) return;
  const lookbackStart = lookbackStartOf(config, stream, today);
  const explicit = range.from !== undefined || range.to !== undefined;
  const lookback = config.lookback[stream.family];
  const refetchBefore = subHours(Date.now(), lookback.refetch_after_hours).getTime();
  const candidates = await stream.partitions(
    planContext(deps, stream, options.days ?? rangeDays(config, today, range), options),
  );
  const due = async (candidates: readonly Partition[]): Promise<readonly Partition[]> => {
    if (failed) return candidates.filter((p) => failed.has(p.key));
    const slice = options.lookbackOnly
      ? candidates.filter((p) => p.day === undefined || p.day >= lookbackStart)
      : candidates;
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
  const size = options.sliceSize ?? PLAN_SLICE;
  let skip = options.skip ?? 0;
  let slice: Partition[] = [];
  for await (const partition of candidates) {
    if (options.dated !== undefined && options.dated !== (partition.day !== undefined)) continue;
    if (skip > 0) {
      skip -= 1;
      continue;
    }
    slice.push(partition);
    if (slice.length < size) continue;
    yield { partitions: await due(slice), candidates: slice.length };
    slice = [];
  }
  if (slice.length > 0) yield { partitions: await due(slice), candidates: slice.length };
}

function planContext(
  { db, config, today }: Pick<RunnerDeps, "db" | "config" | "today">,
  stream: Stream,
  days: readonly string[],
  options: Pick<PlanOptions, "trackedArtistIds" | "catalogueArtistLinks">,
): PlanContext {
  return {
    db,
    config,
    today,
    days,
    checkpoints: (keys) => succeededCheckpoints(db, stream.name, keys),
    trackedArtistIds: options.trackedArtistIds ?? (() => trackedArtistIds(db)),
    catalogueArtistLinks: options.catalogueArtistLinks ?? (() => catalogueArtistLinks(db)),
  };
}

/** The first day of a stream's lookback: the days a sync re-reads, ending yesterday. */
export function lookbackStartOf(
  config: Pick<EtlConfig, "lookback">,
  stream: Pick<Stream, "family">,
  today: string,
): string {
  return addDays(today, -config.lookback[stream.family].days);
}

/** The days a range covers: from start_date and up to yesterday unless it says otherwise. */
export function rangeDays(
  config: Pick<EtlConfig, "start_date">,
  today: string,
  range: DayRange,
): string[] {
  return daysBetween(range.from ?? config.start_date, range.to ?? addDays(today, -1));
}
