import type { Queue } from "bullmq";
import { createWarehouse } from "../warehouse/database.js";
import { attentionSince } from "../warehouse/sync-runs.js";
import { ExitCode } from "./exit-codes.js";
import { followRun, type ProgressOutput } from "./follow-run.js";

/**
 * Follows a queued run to its end: 1 if any partition failed, 4 (attention) when its partitions
 * quarantined records or may be incomplete, 0 otherwise.
 */
export async function waitForRun(
  queue: Queue,
  runId: string,
  streams: readonly string[],
  databaseUrl: string,
  out: ProgressOutput,
): Promise<ExitCode> {
  if (!(await followRun(queue, runId, out))) return ExitCode.failure;
  const queuedAt = new Date((await queue.getJob(runId))?.timestamp ?? Date.now());
  const db = createWarehouse(databaseUrl, { maxConnections: 1 });
  try {
    const { warned, rejected } = await attentionSince(db, streams, queuedAt);
    if (warned === 0 && rejected === 0) return ExitCode.ok;
    out.line(
      `since it was queued, ${rejected} records were quarantined and ${warned} partitions may be incomplete: see \`etl status\`, etl.rejected_records and etl.sync_runs.warnings`,
    );
    return ExitCode.attention;
  } finally {
    await db.destroy();
  }
}
