import { randomUUID } from "node:crypto";
import type { Queue } from "bullmq";
import { RUN_JOB, type RunJobData } from "./job-types.js";

export interface EnqueuedRun {
  readonly runId: string;
  /** False when the same run was already queued or running: nothing was added. */
  readonly added: boolean;
}

/**
 * Queues a run. The same streams over the same range are deduplicated while a run of them is
 * unfinished, so a second identical backfill joins the first instead of adding work.
 */
export async function enqueueRun(queue: Queue, data: RunJobData): Promise<EnqueuedRun> {
  const jobId = `run-${randomUUID()}`;
  const identity = `${data.kind}|${data.range.from ?? ""}|${data.range.to ?? ""}|${data.streams.join(",")}`;
  const job = await queue.add(RUN_JOB, data, { jobId, deduplication: { id: identity } });
  const runId = job.id ?? jobId;
  return { runId, added: runId === jobId };
}
