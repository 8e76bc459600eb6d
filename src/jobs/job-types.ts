import type { DayRange } from "../streams/plan-partitions.js";
import type { Partition } from "../streams/stream.js";

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
  /**
   * Streams planned so far, in planning order (`planningOrder`): a retried or recovered run
   * resumes after them.
   */
  readonly streamsPlanned?: number;
  /** Partitions planned so far. */
  readonly planned?: number;
  /** The partition job ids of the planned streams that other streams of the run wait for. */
  readonly awaitedJobs?: Readonly<Record<string, readonly string[]>>;
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
