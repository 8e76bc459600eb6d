import { createHash } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { DelayedError, type Job, type JobsOptions, type Queue, WaitingChildrenError } from "bullmq";
import type { Logger } from "../logging/logger.js";
import { planPartitions } from "../runner/plan/plan-partitions.js";
import type { Stream } from "../streams/stream.js";
import type { Partition } from "../streams/partition.js";
import { type RunGraph, runGraph } from "../runner/plan/stream-dependencies.js";
import { utcToday } from "../time/calendar.js";
import { pruneResponses } from "../warehouse/responses.js";
import { recordRunStarted } from "../warehouse/runs.js";
import { jobOptions } from "./etl-queue.js";
import { foldCompletedChildren, foldedChildren } from "./folded-children.js";
import { handBackDuringOutage } from "./hand-back.js";
import { jobFinished } from "./job-finished.js";
import { jobStream } from "./job-stream.js";
import {
  PARTITION_JOB,
  type PartitionJobData,
  type RunJobData,
  type RunPlanState,
  type RunResult,
  savedPlanState,
} from "./job-types.js";
import { positionOf, planWindow, type PlanPosition, type WindowPlan } from "./plan-window.js";
import { isUrgent, partitionPlace, plansLookbackOnly, runDays } from "./run-priority.js";
import { settleRetries } from "./settle-retries.js";
import type { WorkerDeps } from "./worker-deps.js";

/** When a run looks again at its plan window, and at whether the streams it waits for are done. */
const TOP_UP_MS = 1_000;
/** How soon it looks while a stream waits for the few partitions it is planned from. */
const AWAIT_MS = 200;

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

/**
 * Fans a run out into partition jobs a plan window at a time (`plan_window` unfinished at once), so
 * that Redis holds no more of a year's backfill than the plan window, and steps aside between top-ups
 * so that it holds a worker only while it plans. docs/architecture.md, "The queue", tells the whole
 * course of a run.
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

/** A run queued by a release that planned every stream at once resumes after those it planned. */
function firstPlanState(data: RunJobData, order: readonly Stream[]): RunPlanState {
  const planned = order.slice(0, data.streamsPlanned ?? 0).map((s) => s.name);
  return {
    today: utcToday(),
    totals: {},
    positions: Object.fromEntries(planned.map((name) => [name, DONE])),
    queued: data.planned ?? 0,
  };
}

const DONE: PlanPosition = { day: 0, offset: 0, done: true };

async function planAndAwait(
  job: Job<RunJobData>,
  token: string | undefined,
  deps: WorkerDeps,
): Promise<RunResult> {
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
  const graph = runGraph(streams);
  if (job.data.plan === undefined && (job.data.streamsPlanned ?? 0) === 0) {
    // Once, before planning: a retry plans what failed for good, which a mark left by a crash
    // would hide; and every run keeps what `etl status`, the metrics and
    // analytics.stream_freshness count as failed true to the queue.
    await settleRetries(deps.runner.db, deps.queue);
  }
  for (;;) {
    const { state, waiting } = await topUp(job, deps, graph, parent);
    const planned = graph.order.every((s) => positionOf(state.positions, s.name).done);
    if (planned) break;
    const wait = waiting ? AWAIT_MS : TOP_UP_MS;
    if (!token) {
      await sleep(wait, undefined, { signal: deps.shutdown }).catch(() => undefined);
      if (deps.shutdown.aborted) throw new Error("worker shutting down");
      continue;
    }
    await job.moveToDelayed(Date.now() + wait, token);
    throw new DelayedError();
  }
  if (
    (savedPlanState(job.data.plan)?.queued ?? 0) > 0 &&
    token &&
    (await job.moveToWaitingChildren(token))
  ) {
    throw new WaitingChildrenError();
  }
  const keepDays = deps.runner.config.keep_responses_days;
  if (keepDays !== null) await pruneResponses(deps.runner.db, keepDays);
  const counts = await job.getDependenciesCount();
  const folded = await foldedChildren(deps.queue, parent.id);
  return {
    planned: job.data.planned ?? 0,
    succeeded: (counts.processed ?? 0) + folded,
    failed: (counts.failed ?? 0) + (counts.ignored ?? 0),
  };
}

/** The run's job, parent of its partition jobs. */
interface RunParent {
  readonly id: string;
  readonly queue: string;
}

/**
 * One look at the run: counts the streams that can be planned now, plans the plan window full, and
 * saves where it stands. `waiting`: a stream still waits for the partitions it is planned from.
 */
async function topUp(
  job: Job<RunJobData>,
  deps: WorkerDeps,
  graph: RunGraph,
  parent: RunParent,
): Promise<{ state: RunPlanState; waiting: boolean }> {
  const { order, awaited } = graph;
  const state = savedPlanState(job.data.plan) ?? firstPlanState(job.data, order);
  const plan: WindowPlan = {
    deps: { ...deps.runner, today: state.today },
    range: job.data.range,
    days: runDays(job.data, order, deps.runner.config, state.today),
    options: {
      failedOnly: job.data.kind === "retry",
      permanentToo: job.data.permanentToo ?? false,
      lookbackOnly: plansLookbackOnly(job.data),
    },
  };
  const { ready, waiting } = await readyStreams(deps.queue, graph, state.positions, job.data);
  const totals = await countReady(plan, ready, state.totals);
  const urgent = isUrgent(job.data, order, deps.runner.config, state.today);
  const unfinished = (await job.getDependenciesCount({ unprocessed: true })).unprocessed ?? 0;
  await foldCompletedChildren(deps.redis, deps.queue, parent.id);
  let queued = state.queued;
  const awaitedJobs = { ...job.data.awaitedJobs };
  const positions = await planWindow(
    plan,
    ready,
    state.positions,
    deps.runner.config.plan_window - unfinished,
    async (stream, partitions, rank) => {
      const isAwaited = awaited.has(stream.name);
      const place = partitionPlace(urgent, isAwaited, rank);
      const jobIds = await addPartitionJobs(deps, parent, stream, partitions, place);
      queued += jobIds.length;
      // Only the streams others wait for: their partitions are few (one per configured name or
      // per run), never one per day.
      if (isAwaited) awaitedJobs[stream.name] = [...(awaitedJobs[stream.name] ?? []), ...jobIds];
    },
  );
  const next: RunPlanState = { today: state.today, totals, positions, queued };
  await savePlan(job, order, next, awaitedJobs);
  logCounted(job, deps.runner.logger, order, state.totals, totals);
  return { state: next, waiting };
}

/**
 * The streams to plan now: not planned whole yet, and the streams they are planned from planned
 * and their jobs finished. `waiting`: some stream still waits for those.
 */
async function readyStreams(
  queue: Queue,
  { order, after }: RunGraph,
  positions: RunPlanState["positions"],
  { awaitedJobs }: RunJobData,
): Promise<{ ready: Stream[]; waiting: boolean }> {
  const ready: Stream[] = [];
  let waiting = false;
  for (const stream of order) {
    // A stream planned whole waits for nothing more: its awaited jobs are not looked up again.
    if (positionOf(positions, stream.name).done) continue;
    const first = after.get(stream.name) ?? [];
    const planned = first.every((name) => positionOf(positions, name).done);
    const jobs = first.flatMap((name) => awaitedJobs?.[name] ?? []);
    if (planned && (await allFinished(queue, jobs))) ready.push(stream);
    else waiting = true;
  }
  return { ready, waiting };
}

/** The totals, with each ready stream not counted yet counted. */
async function countReady(
  plan: WindowPlan,
  ready: readonly Stream[],
  counted: RunPlanState["totals"],
): Promise<Record<string, number>> {
  const totals = { ...counted };
  for (const stream of ready) {
    if (totals[stream.name] !== undefined) continue;
    totals[stream.name] = await countPlanned(plan, stream);
  }
  return totals;
}

/** Adds the partitions as the run's children, at `place` in the queue; returns their job ids. */
async function addPartitionJobs(
  deps: WorkerDeps,
  parent: RunParent,
  stream: Stream,
  partitions: readonly Partition[],
  place: JobsOptions,
): Promise<string[]> {
  const jobs = partitions.map((partition) => ({
    name: PARTITION_JOB,
    data: { stream: stream.name, partition } satisfies PartitionJobData,
    opts: {
      ...jobOptions(deps.runner.config),
      ...place,
      jobId: partitionJobId(parent.id, stream.name, partition),
      parent,
      ignoreDependencyOnFailure: true,
    },
  }));
  await deps.queue.addBulk(jobs);
  return jobs.map((j) => j.opts.jobId);
}

/** Saves where planning stands in the run's job, with the total its progress shows. */
async function savePlan(
  job: Job<RunJobData>,
  order: readonly Stream[],
  next: RunPlanState,
  awaitedJobs: RunJobData["awaitedJobs"],
): Promise<void> {
  const counted = order.filter(
    (s) => next.totals[s.name] !== undefined || next.positions[s.name]?.done,
  );
  const allQueued = order.every((s) => next.positions[s.name]?.done);
  await job.updateData({
    ...job.data,
    plan: next,
    awaitedJobs,
    streamsPlanned: counted.length,
    // Once every partition is queued, what was queued: the counts were made earlier, and an
    // incremental run's due partitions can change meanwhile.
    planned: allQueued
      ? next.queued
      : Math.max(
          next.queued,
          Object.values(next.totals).reduce((a, b) => a + b, 0),
        ),
  });
}

function logCounted(
  job: Job<RunJobData>,
  logger: Logger,
  order: readonly Stream[],
  before: RunPlanState["totals"],
  after: RunPlanState["totals"],
): void {
  const newly = order.filter((s) => before[s.name] === undefined && after[s.name] !== undefined);
  for (const stream of newly) {
    logger.info(
      { jobId: job.id, stream: stream.name, partitions: after[stream.name] },
      "run counted a stream's partitions",
    );
  }
}

/** How many partitions the run will queue for the stream: its progress's total. */
async function countPlanned(plan: WindowPlan, stream: Stream): Promise<number> {
  let count = 0;
  for await (const slice of planPartitions(plan.deps, stream, plan.range, plan.options)) {
    count += slice.length;
  }
  return count;
}
