import type { Queue } from "bullmq";
import type { Warehouse } from "../warehouse/database.js";
import { hostname } from "node:os";
import { parseProcessIdentity } from "../process-identity.js";
import {
  markRunsLost,
  recordRunFinished,
  runningForegroundRuns,
  unfinishedRuns,
} from "../warehouse/runs.js";

/** Jobs looked up at once: a script call each, sent together on the queue's connection. */
const LOOKUPS_AT_ONCE = 500;

export interface SettledRuns {
  /** Runs recorded as queued or running whose job was gone from the queue: now lost. */
  readonly lost: number;
  /** Runs whose job had finished without its worker recording it (it died first): now recorded. */
  readonly finished: number;
  /** Foreground runs (a sync, a replay) whose process is gone from this host: now interrupted. */
  readonly stopped: number;
}

/** Whether the process `identity` (PROCESS_IDENTITY) names is known to be gone: on this host only. */
function processGone(identity: string | null): boolean {
  const named = parseProcessIdentity(identity ?? "");
  if (!named || named.host !== hostname()) return false;
  try {
    process.kill(named.pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ESRCH";
  }
}

/**
 * Records as interrupted the foreground runs whose process died before it could (killed, the
 * machine restarted): what their attempts did stays in etl.attempts, where those attempts are
 * closed as abandoned when their partitions run again. Only on the host that ran them.
 */
async function settleForegroundRuns(db: Warehouse): Promise<number> {
  let stopped = 0;
  for (const run of await runningForegroundRuns(db)) {
    if (!processGone(run.queuedBy)) continue;
    await recordRunFinished(db, run.runId, {
      status: "interrupted",
      finishedAt: new Date(),
      error: "its process stopped before the run ended",
    });
    stopped += 1;
  }
  return stopped;
}

/**
 * Makes etl.runs true to the queue for the runs it records as queued or running (never the
 * history: one lookup per unfinished run). A run whose job is gone from the queue, as when Redis
 * lost its data, is lost: no worker will run it, `etl status` lists it and `etl requeue` queues it
 * again. One whose job completed or failed for good while its worker could not record it (it died
 * in between) is recorded so. A run is recorded only once its job is in the queue, so a run being
 * queued is never taken for lost.
 */
export async function settleRuns(db: Warehouse, queue: Queue): Promise<SettledRuns> {
  const runIds = await unfinishedRuns(db);
  const gone: string[] = [];
  let finished = 0;
  for (let at = 0; at < runIds.length; at += LOOKUPS_AT_ONCE) {
    const slice = runIds.slice(at, at + LOOKUPS_AT_ONCE);
    const states = await Promise.all(slice.map((runId) => queue.getJobState(runId)));
    for (const [i, runId] of slice.entries()) {
      const state = states[i];
      if (state === "unknown") gone.push(runId);
      if (state !== "completed" && state !== "failed") continue;
      const job = await queue.getJob(runId);
      const finishedAt = new Date(job?.finishedOn ?? Date.now());
      await recordRunFinished(
        db,
        runId,
        state === "completed"
          ? { status: "succeeded", finishedAt }
          : { status: "failed", finishedAt, error: job?.failedReason ?? "failed" },
      );
      finished += 1;
    }
  }
  return {
    lost: await markRunsLost(db, gone),
    finished,
    stopped: await settleForegroundRuns(db),
  };
}
