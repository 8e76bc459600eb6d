import type { Queue } from "bullmq";
import { createWarehouse } from "../warehouse/database.js";
import { attentionSince } from "../warehouse/attempt-history.js";
import { ExitCode } from "./exit-codes.js";
import { followRun, type ProgressOutput } from "./follow-run.js";
import { runReportLines } from "./run-report.js";

/**
 * Follows a queued run to its end, then prints its table per stream and the columns it added or
 * widened (as `etl runs show` does, from the warehouse): 1 if any partition failed, 4 (attention)
 * when its partitions quarantined records or may be incomplete, 0 otherwise (a column added or
 * widened is news, never attention).
 */
export async function waitForRun(
  queue: Queue,
  runId: string,
  streams: readonly string[],
  databaseUrl: string,
  out: ProgressOutput,
): Promise<ExitCode> {
  const succeeded = await followRun(queue, runId, out);
  const queuedAt = new Date((await queue.getJob(runId))?.timestamp ?? Date.now());
  const db = createWarehouse(databaseUrl, { maxConnections: 1 });
  try {
    const report = await runReportLines(db, runId);
    if (report) {
      out.line("");
      for (const line of report) out.line(line);
    }
    if (!succeeded) return ExitCode.failure;
    const { warned, rejected } = await attentionSince(db, streams, queuedAt);
    if (warned === 0 && rejected === 0) return ExitCode.ok;
    out.line(
      `since it was queued, ${rejected} records were quarantined and ${warned} partitions may be incomplete: see \`etl status\`, etl.rejected_records and etl.attempts.warnings`,
    );
    return ExitCode.attention;
  } finally {
    await db.destroy();
  }
}
