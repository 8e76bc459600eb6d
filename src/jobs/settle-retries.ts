import type { Queue } from "bullmq";
import type { Warehouse } from "../warehouse/database.js";
import { clearRetryMarks, type RetryMark, retryMarks } from "../warehouse/stream-state.js";
import { jobFinished } from "./job-finished.js";

/** Jobs looked up at once: a script call each, sent together on the queue's connection. */
const LOOKUPS_AT_ONCE = 500;

/**
 * Makes etl.stream_state's retry marks true to the queue, the one authority on whether a job will
 * attempt its partition again: a mark whose job has finished (no attempt left) or is gone is
 * cleared, and its failure counts as final. A worker clears the mark itself when its job fails
 * for good, but only once BullMQ has moved the job, so that a crash never leaves a failure marked
 * final while its job still has attempts; what that leaves behind (a worker that died in between,
 * a job failed by the stalled-job check, a flushed Redis) is found here. Returns how many marks
 * it cleared.
 */
export async function settleRetries(db: Warehouse, queue: Queue): Promise<number> {
  const marks = await retryMarks(db);
  const stale: RetryMark[] = [];
  for (let at = 0; at < marks.length; at += LOOKUPS_AT_ONCE) {
    const slice = marks.slice(at, at + LOOKUPS_AT_ONCE);
    const finished = await Promise.all(slice.map((mark) => jobFinished(queue, mark.jobId)));
    stale.push(...slice.filter((_, i) => finished[i]));
  }
  await clearRetryMarks(db, stale);
  return stale.length;
}
