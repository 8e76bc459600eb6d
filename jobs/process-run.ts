import { createHash } from "node:crypto";
import { type Job, WaitingChildrenError } from "bullmq";
import { planPartitions } from "../src/streams/plan-partitions.js";
import type { Partition } from "../src/streams/stream.js";
import { utcToday } from "../src/time/calendar.js";
import { pruneResponses } from "../src/warehouse/responses.js";
import { jobOptions } from "./etl-queue.js";
import { jobStream } from "./job-stream.js";
import {
  PARTITION_JOB,
  type PartitionJobData,
  type RunJobData,
  type RunResult,
} from "./job-types.js";
import type { WorkerDeps } from "./worker-deps.js";

/**
 * A partition job's id is derived from its run, so a run that is retried or recovered after a
 * crash re-adds nothing it already added. (BullMQ ids may not contain ":".)
 */
export function partitionJobId(runId: string, stream: string, partition: Partition): string {
  const digest = createHash("sha256").update(`${runId}\n${stream}\n${partition.key}`).digest("hex");
  return `partition-${digest.slice(0, 32)}`;
}

/**
 * Fans a run out, one stream at a time: plans the stream's partitions, adds them as child jobs,
 * and waits (in BullMQ's waiting-children state, holding no worker) until they have all finished,
 * succeeded or failed for good, before planning the next stream. The next stage is saved in the
 * job's data first, so a crashed or retried run resumes where it was. At its end, stored
 * responses older than keep_responses_days are pruned.
 */
export async function processRun(
  job: Job<RunJobData>,
  token: string | undefined,
  deps: WorkerDeps,
): Promise<RunResult> {
  const today = utcToday();
  const parent = { id: job.id ?? "", queue: job.queueQualifiedName };
  for (let stage = job.data.stage ?? 0; stage < job.data.streams.length;) {
    const name = job.data.streams[stage] ?? "";
    const stream = jobStream(name);
    let planned = 0;
    // A slice at a time: a year of artist-day partitions is 73,000 for 200 artists, and one
    // addBulk builds every job and its Redis commands in memory at once.
    for await (const slice of planPartitions({ ...deps.runner, today }, stream, job.data.range)) {
      await deps.queue.addBulk(
        slice.map((partition) => ({
          name: PARTITION_JOB,
          data: { stream: name, partition } satisfies PartitionJobData,
          opts: {
            ...jobOptions(deps.runner.config),
            jobId: partitionJobId(parent.id, name, partition),
            parent,
            ignoreDependencyOnFailure: true,
          },
        })),
      );
      planned += slice.length;
    }
    stage += 1;
    await job.updateData({
      ...job.data,
      stage,
      planned: (job.data.planned ?? 0) + planned,
    });
    deps.runner.logger.info(
      {
        jobId: job.id,
        stream: name,
        partitions: planned,
        stage,
        of: job.data.streams.length,
      },
      "run planned a stream",
    );
    if (planned > 0 && token && (await job.moveToWaitingChildren(token))) {
      throw new WaitingChildrenError();
    }
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
