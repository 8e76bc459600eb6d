import type { DayRange } from "../src/streams/plan-partitions.js";
import type { Partition } from "../src/streams/stream.js";

/** The queue's job names. */
export const RUN_JOB = "run";
export const PARTITION_JOB = "partition";

/** Why a run was started. */
export type RunKind = "schedule" | "backfill";

/**
 * A run: its streams in order, planned one at a time (a stream may read what the ones before it
 * wrote), each stream's partitions waited for as children before the next is planned.
 */
export interface RunJobData {
  readonly kind: RunKind;
  readonly streams: readonly string[];
  readonly range: DayRange;
  /** Index of the next stream to plan: a retried or recovered run resumes there. */
  readonly stage?: number;
  /** Partitions planned so far. */
  readonly planned?: number;
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
