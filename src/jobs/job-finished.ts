import type { Queue } from "bullmq";

/**
 * Whether a job will run no more: completed, failed for good (no attempt left), or no longer in
 * the queue (removed, trimmed, Redis lost). Waiting, delayed between attempts, active or waiting
 * for its children, it will.
 */
export async function jobFinished(queue: Queue, jobId: string): Promise<boolean> {
  const state = await queue.getJobState(jobId);
  return state === "completed" || state === "failed" || state === "unknown";
}
