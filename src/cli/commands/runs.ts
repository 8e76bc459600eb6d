import { loadAppConfig } from "../load-app-config.js";
import { UsageError } from "../../errors.js";
import { createWarehouse } from "../../warehouse/database.js";
import { migrateToLatest } from "../../warehouse/migrate.js";
import { recentRuns } from "../../warehouse/run-history.js";
import { ExitCode } from "../exit-codes.js";
import type { Output } from "../output.js";
import { namedRunId } from "../named-run.js";
import { runListLines, runReportLines } from "../run-report.js";
import { wholeNumberOption } from "../whole-number-option.js";

export interface RunsOptions {
  readonly limit?: string;
}

/**
 * `etl runs`: the latest runs of every kind; `etl runs show <run>`: one run's table per stream,
 * from its attempts. Reads the warehouse only (etl.runs, etl.attempts through the analytics
 * views BI tools read), so it answers with the queue and the workers gone.
 */
export async function runsCommand(
  action: string | undefined,
  runId: string | undefined,
  options: RunsOptions,
  out: Output,
): Promise<ExitCode> {
  if (action !== undefined && action !== "show") {
    throw new UsageError(`etl runs takes no argument, or \`show <run>\`; not "${action}"`);
  }
  if ((action === "show") !== (runId !== undefined)) {
    throw new UsageError("etl runs show takes one run id (etl runs lists them)");
  }
  const limit = wholeNumberOption("--limit", options.limit, 1, 10_000) ?? 20;
  const { env } = loadAppConfig({ upstream: false });
  const db = createWarehouse(env.DATABASE_URL, { maxConnections: 1 });
  try {
    await migrateToLatest(db);
    if (runId === undefined) {
      for (const line of runListLines(await recentRuns(db, limit))) out.line(line);
      return ExitCode.ok;
    }
    const named = await namedRunId(db, runId);
    const lines = named === null ? null : await runReportLines(db, named);
    if (!lines) {
      out.line(`no run ${runId} in etl.runs (etl runs lists the latest)`);
      return ExitCode.failure;
    }
    for (const line of lines) out.line(line);
    return ExitCode.ok;
  } finally {
    await db.destroy();
  }
}
