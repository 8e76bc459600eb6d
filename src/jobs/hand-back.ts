import { DelayedError, type Job } from "bullmq";
import type { DependencyGate } from "./dependency-gate.js";

/** When a job handed back during an outage is looked at again (the gate decides when it runs). */
const HAND_BACK_DELAY_MS = 1_000;
/**
 * How often one job is handed back: a job that fails on its own each time a probe happens to
 * fail too must still end, by its attempts, rather than come back for ever.
 */
const MAX_HAND_BACKS = 20;

/**
 * Hands a job that failed back to the queue, its attempt unspent, when Postgres or Redis does
 * not answer, or when it failed of the upstream's outage (`upstreamDown`): the failure is the
 * outage's, not the job's, and the gate (now closed) keeps the worker from taking it again until
 * it ends. Returns otherwise: the failure is the job's own, for BullMQ to retry or fail as usual.
 * (With Redis away the move fails too: the job's lock then lapses and the stalled-job check hands
 * it back once Redis returns.)
 */
export async function handBackDuringOutage(
  job: Job,
  token: string | undefined,
  dependencies: DependencyGate,
  upstreamDown = false,
): Promise<void> {
  const handedBack = Number((job.data as { handedBack?: number }).handedBack ?? 0);
  if (!token || handedBack >= MAX_HAND_BACKS) return;
  if (!upstreamDown && (await dependencies.probe())) return;
  await job.updateData({ ...(job.data as object), handedBack: handedBack + 1 });
  await job.moveToDelayed(Date.now() + HAND_BACK_DELAY_MS, token);
  throw new DelayedError();
}
