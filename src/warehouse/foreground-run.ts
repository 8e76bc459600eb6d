import { randomUUID } from "node:crypto";
import { errorMessage } from "../errors.js";
import { PROCESS_IDENTITY } from "../process-identity.js";
import type { Warehouse } from "./database.js";
import { recordForegroundRun, recordRunFinished, type RunEnd, type RunRequest } from "./runs.js";

/**
 * Runs `body` as a run recorded in etl.runs (kind sync or replay), so that its attempts, like a
 * queued run's, add up to a run that `etl runs` lists: running while it runs, then succeeded,
 * interrupted (`stopped`), or failed with what it threw. `ended` is told of the end once it is
 * recorded (the notifications of a run).
 */
export async function foregroundRun<T>(
  db: Warehouse,
  run: Omit<RunRequest, "runId"> & { readonly kind: "sync" | "replay" },
  stopped: () => boolean,
  body: (runId: string) => Promise<T>,
  ended: (runId: string, end: RunEnd) => Promise<void> = () => Promise.resolve(),
): Promise<{ readonly runId: string; readonly result: T }> {
  const runId = `run-${randomUUID()}`;
  await recordForegroundRun(db, { runId, ...run, queuedBy: PROCESS_IDENTITY });
  let result: T;
  try {
    result = await body(runId);
  } catch (error) {
    const end: RunEnd = { status: "failed", finishedAt: new Date(), error: errorMessage(error) };
    await recordRunFinished(db, runId, end);
    await ended(runId, end);
    throw error;
  }
  const end: RunEnd = { status: stopped() ? "interrupted" : "succeeded", finishedAt: new Date() };
  await recordRunFinished(db, runId, end);
  await ended(runId, end);
  return { runId, result };
}
