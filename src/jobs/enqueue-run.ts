import { randomUUID } from "node:crypto";
import type { Queue } from "bullmq";
import { errorMessage, EtlError } from "../errors.js";
import { PROCESS_IDENTITY } from "../process-identity.js";
import type { Warehouse } from "../warehouse/database.js";
import { RUN_JOB, type RunJobData } from "./job-types.js";

export interface EnqueuedRun {
  readonly runId: string;
  /** False when the same run was already queued or running: nothing was added. */
  readonly added: boolean;
}

/**
 * The run is in the queue, but etl.runs does not say so: should Redis lose it before a worker
 * starts it (a worker records it then), `etl status` cannot list it as lost.
 */
export class RunNotRecordedError extends EtlError {
  constructor(runId: string, cause: unknown) {
    super(
      `run ${runId} was queued but not recorded in etl.runs (${errorMessage(cause)}): run the same command again once Postgres answers, to record it (an identical run still queued is joined, not queued twice)`,
      { runId },
      { cause },
    );
  }
}

/**
 * Queues a run. The same streams over the same range are deduplicated while a run of them is
 * unfinished, so a second identical backfill joins the first instead of adding work. Given the
 * warehouse, records the run in etl.runs once it is queued (the commands do: a run Redis loses is
 * then listed by `etl status`); a worker records every run when it starts it anyway.
 */
export async function enqueueRun(
  queue: Queue,
  data: RunJobData,
  db?: Warehouse,
): Promise<EnqueuedRun> {
  const jobId = `run-${randomUUID()}`;
  const identity = `${data.kind}|${data.range.from ?? ""}|${data.range.to ?? ""}|${data.streams.join(",")}${data.permanentToo ? "|permanent" : ""}`;
  const job = await queue.add(RUN_JOB, data, { jobId, deduplication: { id: identity } });
  const runId = job.id ?? jobId;
  if (db) {
    // Loaded by a caller that records only: `backfill` loads the warehouse's client while it
    // connects to Redis, not before it starts.
    const { recordQueuedRun } = await import("../warehouse/runs.js");
    const run = { runId, kind: data.kind, streams: data.streams, range: data.range };
    await recordQueuedRun(db, { ...run, queuedBy: PROCESS_IDENTITY }).catch((error: unknown) => {
      throw new RunNotRecordedError(runId, error);
    });
  }
  return { runId, added: runId === jobId };
}
