import type { JobsOptions } from "bullmq";
import type { EtlConfig } from "../config/etl-config-schema.js";
import { rangeDays } from "../runner/plan/plan-partitions.js";
import type { Stream } from "../streams/stream.js";
import type { RunJobData } from "./job-types.js";

/**
 * BullMQ takes jobs without a priority first (in order), then prioritized ones, lowest number
 * first (in order within one number). Runs themselves and the partitions of urgent runs have
 * none; a backfill's partitions come after every one of them: the few that its other streams are
 * planned from (the tracked artists) first, then by day, newest first (plan-window.ts's rank: the
 * newest day, the partitions without a day, the day before...). So a stream planned later than
 * the others (its artists known only then) still runs its newest days before their older ones
 * already queued.
 */
const BACKFILL_AWAITED = 1;
const BACKFILL = 10;
/** BullMQ's largest priority. */
const MAX_PRIORITY = 2_097_151;

/**
 * Whether a run's partitions go ahead of backfills: a scheduled run, or a manual one over no
 * more days than its streams' lookback (what a sync re-reads anyway: a sync-sized run). Anything
 * longer is a backfill, which keeps the workers busy whenever nothing more urgent waits.
 */
export function isUrgent(
  run: Pick<RunJobData, "kind" | "range">,
  streams: readonly Stream[],
  config: EtlConfig,
  today: string,
): boolean {
  if (run.kind === "schedule") return true;
  return rangeDays(config, today, run.range).length <= longestLookback(streams, config);
}

function longestLookback(streams: readonly Stream[], config: EtlConfig): number {
  return Math.max(1, ...streams.map((s) => config.lookback[s.family].days));
}

/**
 * Whether a run plans no day before its streams' lookback (PlanOptions.lookbackOnly): a
 * scheduled run, which is sync-sized, unless it names its days.
 */
export function plansLookbackOnly(run: Pick<RunJobData, "kind" | "range">): boolean {
  return run.kind === "schedule" && run.range.from === undefined && run.range.to === undefined;
}

/** The days a run plans, newest first: its range's, or its lookback's (plansLookbackOnly). */
export function runDays(
  run: Pick<RunJobData, "kind" | "range">,
  streams: readonly Stream[],
  config: EtlConfig,
  today: string,
): string[] {
  const days = rangeDays(config, today, run.range).reverse();
  return plansLookbackOnly(run) ? days.slice(0, longestLookback(streams, config)) : days;
}

/** Where a run's partition job goes in the queue; `rank` is its slice's (plan-window.ts). */
export function partitionPlace(urgent: boolean, awaited: boolean, rank: number): JobsOptions {
  if (urgent) return { lifo: awaited };
  if (awaited) return { priority: BACKFILL_AWAITED };
  // Ranks go by half a day (the partitions without a day sit between the newest two days).
  return { priority: Math.min(MAX_PRIORITY, BACKFILL + Math.round(2 * Math.max(0, rank))) };
}
