import type { Queue } from "bullmq";
import { foldedChildren } from "./folded-children.js";
import type { RunJobData, RunKind, RunResult } from "./job-types.js";

export interface RunProgress {
  readonly kind: RunKind;
  /** BullMQ state of the run job: waiting, active, waiting-children, completed, failed... */
  readonly state: string;
  readonly streams: readonly string[];
  /** Streams planned so far. */
  readonly streamsPlanned: number;
  readonly planned: number;
  readonly succeeded: number;
  readonly failed: number;
  readonly finished: boolean;
  /** Why the run itself failed (not one of its partitions). */
  readonly error?: string;
}

/** Where a run stands, from its job and the counts of its child partition jobs. */
export async function readRunProgress(queue: Queue, runId: string): Promise<RunProgress | null> {
  const job = await queue.getJob(runId);
  if (!job) return null;
  const data = job.data as RunJobData;
  const state = await job.getState();
  const counts = await job.getDependenciesCount();
  const folded = await foldedChildren(queue, runId);
  const result = job.returnvalue as RunResult | null;
  return {
    kind: data.kind,
    state,
    streams: data.streams,
    streamsPlanned: data.streamsPlanned ?? 0,
    planned: data.planned ?? 0,
    succeeded: result?.succeeded ?? (counts.processed ?? 0) + folded,
    failed: result?.failed ?? (counts.failed ?? 0) + (counts.ignored ?? 0),
    finished: state === "completed" || state === "failed",
    ...(state === "failed" ? { error: job.failedReason } : {}),
  };
}
