import { createHash } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { DelayedError, type Job, type Queue, WaitingChildrenError } from "bullmq";
import { planPartitions } from "../streams/plan-partitions.js";
import type { Partition } from "../streams/stream.js";
import { runGraph } from "../streams/stream-dependencies.js";
import { utcToday } from "../time/calendar.js";
import { pruneResponses } from "../warehouse/responses.js";
import { recordRunStarted } from "../warehouse/runs.js";
import { jobOptions } from "./etl-queue.js";
import { handBackDuringOutage } from "./hand-back.js";
import { jobFinished } from "./job-finished.js";
import { jobStream } from "./job-stream.js";
import {
  PARTITION_JOB,
  type PartitionJobData,
  type RunJobData,
  type RunResult,
} from "./job-types.js";
import { settleRetries } from "./settle-retries.js";
import type { WorkerDeps } from "./worker-deps.js";

/**
 * How long a run waits in place, holding its worker slot, for the partitions a stream is planned
 * from: they go to the front of the queue and are few, so this is usually enough. Past it, the
 * run steps aside (delayed, to the back of the queue) so a worker with a single slot cannot
 * deadlock on it.
 */
export const AWAIT_IN_PLACE_MS = 5_000;
const AWAIT_POLL_MS = 50;
/** When a run that stepped aside looks again. */
const AWAIT_DELAY_MS = 1_000;

/**
 * A partition job's id is derived from its run, so a run that is retried or recovered after a
 * crash re-adds nothing it already added. (BullMQ ids may not contain ":".)
 */
export function partitionJobId(runId: string, stream: string, partition: Partition): string {
  const digest = createHash("sha256").update(`${runId}\n${stream}\n${partition.key}`).digest("hex");
  return `partition-${digest.slice(0, 32)}`;
}

/** Whether every one of these jobs has finished: completed, failed for good, or removed. */
async function allFinished(queue: Queue, jobIds: readonly string[]): Promise<boolean> {
  for (const id of jobIds) {
    if (!(await jobFinished(queue, id))) return false;
  }
  return true;
}

/** Waits up to AWAIT_IN_PLACE_MS for the jobs to finish; false if they have not by then. */
async function awaitJobs(
  queue: Queue,
  jobIds: readonly string[],
  signal: AbortSignal,
): Promise<boolean> {
  const deadline = Date.now() + AWAIT_IN_PLACE_MS;
  for (;;) {
    if (await allFinished(queue, jobIds)) return true;
    if (Date.now() >= deadline || signal.aborted) return false;
    await sleep(AWAIT_POLL_MS);
  }
}

/**
 * Fans a run out: plans every stream's partitions as child jobs, so the partitions of streams
 * that do not depend on each other flow through the workers together. A stream planned from what
 * another wrote (`Stream.after`) waits for that stream's partitions to finish (see
 * AWAIT_IN_PLACE_MS); those partitions go to the front of the queue. Progress is saved in the job's data
 * after each stream, so a crashed or retried run resumes where it was. Once every stream is
 * planned, the run waits (in BullMQ's waiting-children state) for all its partitions, then
 * prunes stored responses older than keep_responses_days. Each time it is taken up, it is recorded
 * as running in etl.runs (and recorded there if no command did: a scheduled run).
 */
export async function processRun(
  job: Job<RunJobData>,
  token: string | undefined,
  deps: WorkerDeps,
): Promise<RunResult> {
  try {
    return await planAndAwait(job, token, deps);
  } catch (error) {
    // Planning cut short by an outage resumes where it stopped (its progress is in the job).
    if (!(error instanceof DelayedError || error instanceof WaitingChildrenError)) {
      await handBackDuringOutage(job, token, deps.dependencies);
    }
    throw error;
  }
}

async function planAndAwait(
  job: Job<RunJobData>,
  token: string | undefined,
  deps: WorkerDeps,
): Promise<RunResult> {
  const today = utcToday();
  const parent = { id: job.id ?? "", queue: job.queueQualifiedName };
  await recordRunStarted(deps.runner.db, {
    runId: parent.id,
    kind: job.data.kind,
    streams: job.data.streams,
    range: job.data.range,
    // A scheduled run's job is added, delayed, when the one before it starts: it is due later.
    queuedAt: new Date(job.timestamp + (job.opts.delay ?? 0)),
  });
  const streams = job.data.streams.map(jobStream);
  const { order, after, awaited } = runGraph(streams);
  if ((job.data.streamsPlanned ?? 0) === 0) {
    // Once, before planning: a retry plans what failed for good, which a mark left by a crash
    // would hide; and every run keeps what `etl status`, the metrics and
    // analytics.stream_freshness count as failed true to the queue.
    await settleRetries(deps.runner.db, deps.queue);
  }
  for (let done = job.data.streamsPlanned ?? 0; done < order.length;) {
    const stream = order[done];
    if (!stream) break;
    const waitingFor = (after.get(stream.name) ?? []).flatMap(
      (name) => job.data.awaitedJobs?.[name] ?? [],
    );
    if (token && !(await awaitJobs(deps.queue, waitingFor, deps.shutdown))) {
      await job.moveToDelayed(Date.now() + AWAIT_DELAY_MS, token);
      throw new DelayedError();
    }
    const jobIds: string[] = [];
    // A slice at a time: a year of artist-day partitions is 73,000 for 200 artists, and one
    // addBulk builds every job and its Redis commands in memory at once.
    const plan = planPartitions({ ...deps.runner, today }, stream, job.data.range, {
      failedOnly: job.data.kind === "retry",
    });
    for await (const slice of plan) {
      const jobs = slice.map((partition) => ({
        name: PARTITION_JOB,
        data: { stream: stream.name, partition } satisfies PartitionJobData,
        opts: {
          ...jobOptions(deps.runner.config),
          jobId: partitionJobId(parent.id, stream.name, partition),
          parent,
          ignoreDependencyOnFailure: true,
          lifo: awaited.has(stream.name),
        },
      }));
      await deps.queue.addBulk(jobs);
      jobIds.push(...jobs.map((j) => j.opts.jobId));
    }
    done += 1;
    await job.updateData({
      ...job.data,
      streamsPlanned: done,
      planned: (job.data.planned ?? 0) + jobIds.length,
      // Only the streams others wait for: their partitions are few (one per configured name or
      // per run), never one per day.
      ...(awaited.has(stream.name)
        ? { awaitedJobs: { ...job.data.awaitedJobs, [stream.name]: jobIds } }
        : {}),
    });
    deps.runner.logger.info(
      { jobId: job.id, stream: stream.name, partitions: jobIds.length, done, of: order.length },
      "run planned a stream",
    );
  }
  if ((job.data.planned ?? 0) > 0 && token && (await job.moveToWaitingChildren(token))) {
    throw new WaitingChildrenError();
  }
  const keepDays = deps.runner.config.keep_responses_days;
  if (keepDays !== null) await pruneResponses(deps.runner.db, keepDays);
  const counts = await job.getDependenciesCount();
  return {
    planned: job.data.planned ?? 0,
    succeeded: counts.processed ?? 0,
    failed: (counts.failed ?? 0) + (counts.ignored ?? 0),
  };
}
