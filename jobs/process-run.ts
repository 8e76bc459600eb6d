import { createHash } from "node:crypto";
import { type Job, WaitingChildrenError } from "bullmq";
import { planPartitions } from "../src/streams/plan-partitions.js";
import { streamNamed } from "../src/streams/registry.js";
import type { Partition } from "../src/streams/stream.js";
import { utcToday } from "../src/time/calendar.js";
import { jobOptions } from "./etl-queue.js";
import {
  PARTITION_JOB,
  type PartitionJobData,
  type RunJobData,
  type RunResult,
} from "./job-types.js";
import type { WorkerDeps } from "./worker-deps.js";

/** Partition jobs added to Redis per round trip. */
const ADD_BULK_SLICE = 1_000;

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
 * job's data first, so a crashed or retried run resumes where it was.
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
    const stream = streamNamed(name);
    const partitions = await planPartitions({ ...deps.runner, today }, stream, job.data.range);
    // In slices: one addBulk builds every job and its Redis commands in memory at once, and a
    // year of artist-day partitions is 73,000 of them.
    for (let first = 0; first < partitions.length; first += ADD_BULK_SLICE) {
      await deps.queue.addBulk(
        partitions.slice(first, first + ADD_BULK_SLICE).map((partition) => ({
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
    }
    stage += 1;
    await job.updateData({
      ...job.data,
      stage,
      planned: (job.data.planned ?? 0) + partitions.length,
    });
    deps.runner.logger.info(
      {
        jobId: job.id,
        stream: name,
        partitions: partitions.length,
        stage,
        of: job.data.streams.length,
      },
      "run planned a stream",
    );
    if (partitions.length > 0 && token && (await job.moveToWaitingChildren(token))) {
      throw new WaitingChildrenError();
    }
  }
  const counts = await job.getDependenciesCount();
  return {
    planned: job.data.planned ?? 0,
    succeeded: counts.processed ?? 0,
    failed: (counts.failed ?? 0) + (counts.ignored ?? 0),
  };
}
