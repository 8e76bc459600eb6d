import { setMaxListeners } from "node:events";
import { type Job, Worker } from "bullmq";
import type { EtlConfig } from "../config/etl-config-schema.js";
import type { Logger } from "../logging/logger.js";
import { bullConnection, bullPrefix, QUEUE_NAME } from "./etl-queue.js";
import { clearRetryMarks } from "../warehouse/stream-state.js";
import { PARTITION_JOB, type PartitionJobData, RUN_JOB, type RunJobData } from "./job-types.js";
import { processPartition } from "./process-partition.js";
import { processRun } from "./process-run.js";
import type { WorkerDeps } from "./worker-deps.js";
import { errorMessage } from "../errors.js";
import {
  MAX_STALLED_COUNT,
  recordStalledOut,
  stalledOut,
  stalledOutMessage,
} from "./stalled-out.js";

export interface EtlWorker {
  readonly worker: Worker;
  /**
   * Stops taking jobs and lets active ones finish for up to `graceMs`; then aborts them, and
   * each gives its job back to the queue for another worker.
   */
  stop(graceMs: number): Promise<void>;
}

export function startEtlWorker(options: {
  readonly redisUrl: string;
  readonly config: EtlConfig;
  readonly logger: Logger;
  readonly deps: Omit<WorkerDeps, "shutdown">;
}): EtlWorker {
  const { config, logger } = options;
  const shutdown = new AbortController();
  // Every active job's requests listen to it: not a leak, though Node warns of one past 10.
  setMaxListeners(0, shutdown.signal);
  const deps: WorkerDeps = { ...options.deps, shutdown: shutdown.signal };
  const worker = new Worker(
    QUEUE_NAME,
    (job: Job, token?: string) =>
      job.name === RUN_JOB
        ? processRun(job as Job<RunJobData>, token, deps)
        : processPartition(job as Job<PartitionJobData>, token, deps),
    {
      connection: bullConnection(options.redisUrl),
      prefix: bullPrefix(config),
      concurrency: config.worker_concurrency,
      // A crashed worker's jobs are picked up again after about one lock period.
      lockDuration: config.job_lock_ms,
      stalledInterval: config.job_lock_ms,
      // A job that stalled twice is failed, not handed to a third worker (see stalled-out.ts).
      maxStalledCount: MAX_STALLED_COUNT,
      // Started by the credential gate once the upstream accepts the key: a worker with a refused
      // key must not take jobs only to hand them back.
      autorun: false,
    },
  );
  // Clears of retry marks still writing: a stopping worker waits for them.
  const clearing = new Set<Promise<void>>();
  worker.on("failed", (job, error) => {
    const data = job?.data as Partial<PartitionJobData> | undefined;
    const stalled = job !== undefined && stalledOut(job);
    logger.warn(
      {
        jobId: job?.id,
        job: job?.name,
        stream: data?.stream,
        partition: data?.partition?.key,
        attempt: job?.attemptsMade,
        err: stalled ? stalledOutMessage(job) : error.message,
      },
      "job failed",
    );
    // finishedOn: BullMQ has moved the job to failed, with no attempt left. Its last attempt named
    // it in etl.stream_state as the job that may try again: it will not, the failure is final.
    // Cleared only now, so a crash before the move leaves the mark (settleRetries finds it).
    if (job?.name !== PARTITION_JOB || job.finishedOn === undefined || !job.id) return;
    if (!data?.stream || !data.partition) return;
    const mark = { stream: data.stream, partition: data.partition.key, jobId: job.id };
    // A job that stalled out never ran its last attempt: nothing recorded its failure yet.
    const recorded = stalled
      ? recordStalledOut(deps, job as Job<PartitionJobData>)
      : clearRetryMarks(deps.runner.db, [mark]);
    const cleared = recorded
      .catch((err: unknown) =>
        logger.warn(
          { ...mark, err: errorMessage(err) },
          stalled
            ? "could not record the partition whose job stalled out as failed"
            : "could not record the partition as failed for good; the next run or status will",
        ),
      )
      .finally(() => clearing.delete(cleared));
    clearing.add(cleared);
  });
  worker.on("stalled", (jobId) => {
    logger.warn({ jobId }, "job stalled (its lock expired while active): handed back to the queue");
    deps.onStalled?.();
  });
  worker.on("error", (error) => {
    logger.error({ err: error.message }, "worker error");
  });
  // Not waiting for the active jobs: the job that met the refusal is one of them.
  deps.credential.on("close", () => worker.pause(true));
  // resume() also starts a worker that never ran.
  deps.credential.on("open", () => worker.resume());
  void deps.credential.verify();
  return {
    worker,
    async stop(graceMs) {
      deps.credential.close();
      const timer = setTimeout(() => {
        logger.warn({ graceMs }, "grace period over: giving active jobs back to the queue");
        shutdown.abort(new Error("worker shutting down"));
      }, graceMs);
      try {
        await worker.close();
        await Promise.all(clearing);
      } finally {
        clearTimeout(timer);
      }
    },
  };
}
