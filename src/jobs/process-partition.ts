import { DelayedError, type Job, UnrecoverableError } from "bullmq";
import { errorMessage } from "../errors.js";
import { AuthError, permanentCause, ResponseTooLargeError } from "../http/upstream-errors.js";
import { syncPartition } from "../runner/extract/sync-partition.js";
import { utcToday } from "../time/calendar.js";
import type { Stream } from "../streams/stream.js";
import { savePageSizes } from "../warehouse/page-size-facts.js";
import { jobStream } from "./job-stream.js";
import type { PartitionJobData } from "./job-types.js";
import { handBackDuringOutage } from "./hand-back.js";
import { healthSignOf } from "../http/upstream-health.js";
import { lockPartition } from "./partition-lock.js";
import type { WorkerDeps } from "./worker-deps.js";

/**
 * Runs one partition, holding its lock. A failure is thrown so BullMQ retries the job with
 * backoff, but for an answer larger than max_response_bytes or a failure no retry can cure (a 404
 * for an unknown artist): another attempt would ask the same and be refused again. A partition cut short by a shutdown, by a refused credential
 * (which closes the worker's credential gate), by Postgres or Redis going away (which closes
 * its dependency gate) or by the upstream's outage goes back to the queue without spending an
 * attempt.
 */
export async function processPartition(
  job: Job<PartitionJobData>,
  token: string | undefined,
  deps: WorkerDeps,
): Promise<{ rowsWritten: number; requests: number }> {
  const stream = jobStream(job.data.stream);
  const { config } = deps.runner;
  const lock = await lockPartition(
    deps.redis,
    config.redis_prefix,
    stream.name,
    job.data.partition.key,
    config.job_lock_ms,
  );
  if (!lock) {
    // Another run's job holds this partition: come back once it is likely done.
    if (!token) throw new Error(`partition ${stream.name} ${job.data.partition.key} is locked`);
    await job.moveToDelayed(Date.now() + Math.min(5_000, config.job_lock_ms), token);
    throw new DelayedError();
  }
  try {
    return await runLocked(job, token, deps, stream);
  } finally {
    await lock.release();
  }
}

async function runLocked(
  job: Job<PartitionJobData>,
  token: string | undefined,
  deps: WorkerDeps,
  stream: Stream,
): Promise<{ rowsWritten: number; requests: number }> {
  const outcome = await syncPartition(
    {
      ...deps.runner,
      logger: deps.runner.logger.child({ jobId: job.id }),
      today: utcToday(),
      signal: deps.shutdown,
      // Holding the lock, no other attempt of this partition can be alive.
      closeAbandoned: true,
      jobId: job.id,
      ...(job.parent ? { run: job.parent.id } : {}),
      deferRecord: (record) => deps.dependencies.defer(record),
    },
    stream,
    job.data.partition,
  );
  deps.onPartition?.(outcome);
  if (outcome.status === "failed") {
    // Declared by another worker maybe, which this one has not met yet: Redis says.
    const upstreamDown =
      healthSignOf(outcome.error) === "failed" && (await deps.upstream.standing()) !== null;
    await handBackDuringOutage(job, token, deps.dependencies, upstreamDown);
  }
  const learned = deps.runner.pageSizes?.takeChanged() ?? [];
  if (learned.length > 0) {
    // The partition's rows are committed: page sizes that could not be saved (Postgres went
    // away just now) are written with the other deferred records, never a reason to spend an
    // attempt and run the partition again.
    const save = () => savePageSizes(deps.runner.db, learned);
    await save().catch(() => deps.dependencies.defer(save));
  }
  if (outcome.status === "succeeded") {
    return { rowsWritten: outcome.rowsWritten, requests: outcome.requests };
  }
  if (outcome.error instanceof AuthError) deps.credential.refuse(outcome.error);
  if (outcome.status === "interrupted" && token) {
    await job.moveToDelayed(Date.now(), token);
    throw new DelayedError();
  }
  // Another attempt would ask for the same answer and meet the same refusal.
  if (outcome.error instanceof ResponseTooLargeError || permanentCause(outcome.error) !== null) {
    throw new UnrecoverableError(errorMessage(outcome.error));
  }
  throw outcome.error instanceof Error ? outcome.error : new Error(String(outcome.error));
}
