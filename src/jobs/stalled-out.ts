import type { Job } from "bullmq";
import { lockPartition } from "./partition-lock.js";
import type { PartitionJobData } from "./job-types.js";
import type { WorkerDeps } from "./worker-deps.js";
import { closeAbandonedAttempts } from "../warehouse/attempts.js";
import { markPartitionFailed } from "../warehouse/stream-state.js";

/**
 * Stalls a job survives (BullMQ's maxStalledCount): a job stalls when its lock expires while it
 * is active, because its worker died (killed, out of memory) or its event loop stopped. After the
 * first stall another worker runs it again; at the second, BullMQ marks it to fail, and the next
 * worker to take it fails it without running it. A job that killed two workers is not given a
 * third to kill.
 */
export const MAX_STALLED_COUNT = 1;

/** Whether a failed job failed by stalling more than MAX_STALLED_COUNT times. */
export function stalledOut(job: Job): boolean {
  return job.stalledCounter > MAX_STALLED_COUNT;
}

/** What a partition that stalled out records as its error. */
export function stalledOutMessage(job: Job): string {
  return `its job stalled ${job.stalledCounter} times (each time the worker running it died or stopped answering, as a process out of memory does) and was failed without another attempt`;
}

/**
 * Records a partition job that stalled out as failed for good in etl.stream_state, like any
 * partition that failed with no attempt left (retry-failed picks it up; etl status and
 * etl_stream_failed_partitions count it), and closes the attempts its dead workers left running
 * as abandoned, with the same message. Those are closed only under the partition's lock: a job of
 * another run may be running the partition now, and its attempt is alive.
 */
export async function recordStalledOut(
  deps: Pick<WorkerDeps, "runner" | "redis">,
  job: Job<PartitionJobData>,
): Promise<void> {
  const { db, config } = deps.runner;
  const { stream, partition } = job.data;
  const message = stalledOutMessage(job);
  const lock = await lockPartition(
    deps.redis,
    config.redis_prefix,
    stream,
    partition.key,
    config.job_lock_ms,
  );
  try {
    await db.transaction().execute(async (trx) => {
      if (lock) await closeAbandonedAttempts(trx, stream, partition.key, message);
      await markPartitionFailed(trx, stream, partition.key, message);
    });
  } finally {
    await lock?.release();
  }
}
