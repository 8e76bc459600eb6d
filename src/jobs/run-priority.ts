import type { JobsOptions } from "bullmq";
import type { EtlConfig } from "../config/etl-config-schema.js";
import { rangeDays } from "../streams/plan-partitions.js";
import type { Stream } from "../streams/stream.js";
import type { RunJobData } from "./job-types.js";

/**
 * BullMQ takes jobs without a priority first (in order), then prioritized ones, lowest number
 * first. Runs themselves and the partitions of urgent runs have none; a backfill's partitions
 * come after every one of them, the few that its other streams are planned from (the tracked
 * artists) before the rest.
 */
const BACKFILL_AWAITED = 1;
const BACKFILL = 10;

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
  const lookback = Math.max(1, ...streams.map((s) => config.lookback[s.family].days));
  return rangeDays(config, today, run.range).length <= lookback;
}

/** Where a run's partition job goes in the queue. */
export function partitionPlace(urgent: boolean, awaited: boolean): JobsOptions {
  if (urgent) return { lifo: awaited };
  return { priority: awaited ? BACKFILL_AWAITED : BACKFILL };
}
