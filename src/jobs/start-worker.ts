import { setMaxListeners } from "node:events";
import { type Job, Worker } from "bullmq";
import type { EtlConfig } from "../config/etl-config-schema.js";
import type { Logger } from "../logging/logger.js";
import { bullConnection, bullPrefix, QUEUE_NAME } from "./etl-queue.js";
import { recordRunFinished, type RunEnd } from "../warehouse/runs.js";
import { clearRetryMarks } from "../warehouse/stream-state.js";
import { PARTITION_JOB, type PartitionJobData, RUN_JOB, type RunJobData } from "./job-types.js";
import { processPartition } from "./process-partition.js";
import { processRun } from "./process-run.js";
import type { WorkerDeps } from "./worker-deps.js";
import type { Gate } from "./gate.js";
import { upstreamGate } from "./upstream-gate.js";
import { notifyRunEnded } from "./run-notifications.js";
import { errorMessage } from "../errors.js";
import { runWroteRows, settleAfterRun } from "../analytics/settle-after-run.js";
import { logSettlement } from "./log-settlement.js";
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

/** When BullMQ finished the job, or now if it does not say. */
function finishedAt(job: Job): Date {
  return new Date(job.finishedOn ?? Date.now());
}

export function startEtlWorker(options: {
  readonly redisUrl: string;
  readonly config: EtlConfig;
  readonly logger: Logger;
  readonly deps: Omit<WorkerDeps, "shutdown">;
}): EtlWorker {
  const { logger } = options;
  const shutdown = new AbortController();
  // Every active job's requests listen to it: not a leak, though Node warns of one past 10.
  setMaxListeners(0, shutdown.signal);
  const deps: WorkerDeps = { ...options.deps, shutdown: shutdown.signal };
  const worker = createWorker(options.redisUrl, options.config, deps);
  // Writes of finished jobs to the warehouse still going: a stopping worker waits for them.
  const writing = new Set<Promise<void>>();
  const write = (done: Promise<void>) => {
    const tracked = done.finally(() => writing.delete(tracked));
    writing.add(tracked);
  };
  listenToJobs(worker, { deps, logger, write });
  runWhileGatesOpen(worker, deps);
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
        await Promise.all(writing);
        await deps.dependencies.stop();
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

function createWorker(redisUrl: string, config: EtlConfig, deps: WorkerDeps): Worker {
  return new Worker(
    QUEUE_NAME,
    (job: Job, token?: string) =>
      job.name === RUN_JOB
        ? processRun(job as Job<RunJobData>, token, deps)
        : processPartition(job as Job<PartitionJobData>, token, deps),
    {
      connection: bullConnection(redisUrl),
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
}

/** What the worker's event handlers use; `write` tracks a warehouse write, which stop awaits. */
interface JobEvents {
  readonly deps: WorkerDeps;
  readonly logger: Logger;
  readonly write: (done: Promise<void>) => void;
}

function listenToJobs(worker: Worker, events: JobEvents): void {
  const { deps, logger } = events;
  worker.on("completed", (job) => {
    if (job.name !== RUN_JOB || !job.id) return;
    runFinished(events, job as Job<RunJobData>, {
      status: "succeeded",
      finishedAt: finishedAt(job),
    });
  });
  worker.on("failed", (job, error) => jobFailed(events, job, error));
  worker.on("stalled", (jobId) => {
    logger.warn({ jobId }, "job stalled (its lock expired while active): handed back to the queue");
    deps.onStalled?.();
  });
  worker.on("error", (error) => {
    logger.error({ err: error.message }, "worker error");
  });
}

/**
 * A run's end, in etl.runs, and told to the notification targets that want it. A worker that
 * dies before leaves it running there: `etl status` finds its job finished (or gone) in the queue
 * and records that. Postgres away: written once it answers, as an attempt's end is, before the
 * queue trims the job.
 */
function runFinished({ deps, logger, write }: JobEvents, job: Job<RunJobData>, end: RunEnd): void {
  const runId = job.id ?? "";
  const { db } = deps.runner;
  const notify = () =>
    notifyRunEnded(deps.notifier, db, { runId, kind: job.data.kind, ...end }).catch(
      (err: unknown) =>
        logger.warn({ jobId: runId, err: errorMessage(err) }, "could not tell of the run's end"),
    );
  // The roles settled first, where the run wrote rows: the end's check of the readings reads the
  // units through them.
  const settled = runWroteRows(db, runId).then(async (wrote) => {
    if (wrote)
      logSettlement(logger, await settleAfterRun(db, deps.runner.config.roles, runId), runId);
  });
  write(
    settled
      .then(() => recordRunFinished(db, runId, end))
      .then(notify, (err: unknown) => {
        logger.warn(
          { jobId: runId, status: end.status, err: errorMessage(err) },
          "could not record the run's end in etl.runs yet",
        );
        deps.dependencies.defer(() => recordRunFinished(db, runId, end).then(notify));
      }),
  );
}

function jobFailed(events: JobEvents, job: Job | undefined, error: Error): void {
  const { deps, logger, write } = events;
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
  // finishedOn: BullMQ has moved the job to failed, with no attempt left.
  if (job?.finishedOn === undefined || !job.id) return;
  if (job.name === RUN_JOB) {
    runFinished(events, job as Job<RunJobData>, {
      status: "failed",
      finishedAt: finishedAt(job),
      error: error.message,
    });
    return;
  }
  // A partition's last attempt named its job in etl.stream_state as the one that may try again:
  // it will not, the failure is final. Cleared only now, so a crash before the move leaves the
  // mark (settleRetries finds it).
  if (job.name !== PARTITION_JOB || !data?.stream || !data.partition) return;
  const mark = { stream: data.stream, partition: data.partition.key, jobId: job.id };
  // A job that stalled out never ran its last attempt: nothing recorded its failure yet.
  const recorded = stalled
    ? recordStalledOut(deps, job as Job<PartitionJobData>)
    : clearRetryMarks(deps.runner.db, [mark]);
  write(
    recorded.catch((err: unknown) =>
      logger.warn(
        { ...mark, err: errorMessage(err) },
        stalled
          ? "could not record the partition whose job stalled out as failed"
          : "could not record the partition as failed for good; the next run or status will",
      ),
    ),
  );
}

/**
 * Jobs are taken while every gate is open: the upstream accepts the key and is not declared
 * down, and Postgres and Redis answer. Not waiting for the active jobs on a pause: the job that
 * met the refusal or the outage is one of them (an active job's requests wait for a down
 * upstream's return). The gates' first checks start now; the worker starts when all are open.
 */
function runWhileGatesOpen(worker: Worker, deps: WorkerDeps): void {
  const gates: readonly Gate[] = [
    deps.credential,
    deps.dependencies,
    upstreamGate(deps.upstream, deps.runner.logger),
  ];
  // resume() also starts a worker that never ran.
  const resume = () => (gates.every((gate) => gate.open) ? worker.resume() : undefined);
  for (const gate of gates) {
    gate.on("close", () => worker.pause(true));
    gate.on("open", resume);
  }
  void deps.credential.verify();
  void deps.dependencies.probe();
}
