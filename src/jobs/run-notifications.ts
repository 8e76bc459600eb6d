import type { Notifier } from "../notify/notifier.js";
import type { Warehouse } from "../warehouse/database.js";
import { runOutcome } from "../warehouse/run-outcome.js";

/** A run's end, as a notification tells it. */
export interface EndedRun {
  readonly runId: string;
  readonly kind: string;
  readonly status: "succeeded" | "failed" | "interrupted";
  readonly finishedAt: Date;
  readonly error?: string;
}

/**
 * Tells of a run that ended failed or with partitions needing attention (run_ended), of its
 * partitions failed for good (partitions_failed), and of the columns it added or widened
 * (schema_changed). A run that ended clean is not news. Told by the process that recorded the
 * end: once.
 */
export async function notifyRunEnded(
  notifier: Notifier,
  db: Warehouse,
  run: EndedRun,
): Promise<void> {
  if (
    !(["run_ended", "partitions_failed", "schema_changed"] as const).some((e) => notifier.wants(e))
  ) {
    return;
  }
  const outcome = await runOutcome(db, run.runId);
  const base = {
    key: run.runId,
    at: run.finishedAt,
    run: run.runId,
    streams: outcome.streams,
    command: `npx etl runs show ${run.runId}`,
  };
  const details = {
    kind: run.kind,
    status: run.status,
    failedPartitions: outcome.failed,
    partitionsNeedingAttention: outcome.attention,
    schemaChanges: outcome.schemaChanges,
    error: run.error ?? null,
  };
  if (run.status === "failed" || outcome.failed > 0 || outcome.attention > 0) {
    const what =
      run.status === "failed"
        ? `failed${run.error ? `: ${run.error}` : ""}`
        : `ended with ${outcome.failed} partitions failed and ${outcome.attention} needing attention`;
    notifier.notify({
      ...base,
      event: "run_ended",
      summary: `${run.kind} ${run.runId} ${what}`,
      details,
    });
  }
  if (outcome.failed > 0) {
    notifier.notify({
      ...base,
      event: "partitions_failed",
      summary: `${outcome.failed} partitions of ${run.kind} ${run.runId} failed for good; \`npx etl retry-failed\` queues them again once the cause is fixed`,
      details,
    });
  }
  if (outcome.schemaChanges > 0) {
    notifier.notify({
      ...base,
      event: "schema_changed",
      summary: `${run.kind} ${run.runId} added or widened ${outcome.schemaChanges} columns for what the upstream sends`,
      command: "npx etl status",
      details,
    });
  }
}
