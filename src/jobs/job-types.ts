import type { DayRange } from "../runner/plan/plan-partitions.js";
import type { Partition } from "../streams/partition.js";
import type { PlanPosition } from "./plan-window.js";

/** The queue's job names. */
export const RUN_JOB = "run";
export const PARTITION_JOB = "partition";

/** Why a run was started. A retry plans only the partitions whose last attempt failed. */
export type RunKind = "schedule" | "backfill" | "retry";

/**
 * A run: its streams, each planned into partition jobs (children of the run); a stream planned
 * from what another wrote waits for that stream's partitions to finish first.
 */
export interface RunJobData {
  readonly kind: RunKind;
  readonly streams: readonly string[];
  readonly range: DayRange;
  /** A retry that queues failures no retry can cure too (`etl retry-failed --permanent`). */
  readonly permanentToo?: boolean;
  /**
   * Streams whose partitions are counted (`planned` holds them): a run plans a plan window of
   * partitions at a time (plan-window.ts), but counts every stream's as soon as the stream can be
   * planned, so that its progress has a total.
   */
  readonly streamsPlanned?: number;
  /** Partitions the run will queue in all, of the streams counted so far. */
  readonly planned?: number;
  /** The partition job ids of the planned streams that other streams of the run wait for. */
  readonly awaitedJobs?: Readonly<Record<string, readonly string[]>>;
  /** Where planning stands, saved after each top-up of the plan window (none before the first). */
  readonly plan?: RunPlanState | EarlierRunPlanState;
}

/** A run's planning, as far as it went. */
export interface RunPlanState {
  /** The run's day (UTC) when it first planned: its range's days are fixed by it. */
  readonly today: string;
  /** Partitions counted per stream, once the stream can be planned. */
  readonly totals: Readonly<Record<string, number>>;
  /** Where each stream's planning stands (none: not looked at yet). */
  readonly positions: Readonly<Record<string, PlanPosition>>;
  /** Partitions queued so far. */
  readonly queued: number;
}

/**
 * A run's planning as a release before 2026-12-03 saved it, the positions named `cursors`: a run
 * it queued or planned is taken up by this one from where it stood.
 */
export interface EarlierRunPlanState extends Omit<RunPlanState, "positions"> {
  readonly cursors: RunPlanState["positions"];
}

/** A run's saved planning, whichever release saved it. */
export function savedPlanState(plan: RunJobData["plan"]): RunPlanState | undefined {
  if (plan === undefined || "positions" in plan) return plan;
  const { cursors, ...rest } = plan;
  return { ...rest, positions: cursors };
}

export interface PartitionJobData {
  readonly stream: string;
  readonly partition: Partition;
}

export interface RunResult {
  readonly planned: number;
  readonly succeeded: number;
  readonly failed: number;
}
