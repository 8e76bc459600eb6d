import { createAppContext } from "../../app-context.js";
import { loadConfig } from "../../config/load-config.js";
import { AuthError } from "../../errors.js";
import { selectStreams } from "../../streams/registry.js";
import { runSync, type StreamSummary } from "../../streams/run-sync.js";
import { utcToday } from "../../time/calendar.js";
import { createWarehouse } from "../../warehouse/database.js";
import { ensureDatabase } from "../../warehouse/ensure-database.js";
import { migrateToLatest } from "../../warehouse/migrate.js";
import { type DayRangeOptions, parseDayRange, parseList } from "../day-range-options.js";
import { ExitCode } from "../exit-codes.js";
import { type Output, table } from "../output.js";

export interface SyncOptions extends DayRangeOptions {
  readonly only?: string;
}

function summaryRow(
  s: Pick<StreamSummary, "partitions" | "requests" | "rowsWritten" | "durationMs"> & {
    stream: string;
    failed: number;
  },
): string[] {
  return [
    s.stream,
    String(s.partitions),
    String(s.failed),
    String(s.requests),
    String(s.rowsWritten),
    (s.durationMs / 1000).toFixed(1),
  ];
}

/** The fields whose values typed columns could not hold: the upstream has drifted. */
function reportUntyped(summaries: readonly StreamSummary[], out: Output): void {
  const rows = summaries.flatMap((s) =>
    s.untyped.map((u) => [s.stream, u.field, u.expected, String(u.count), u.examples.join(" ")]),
  );
  if (rows.length === 0) return;
  out.line("");
  out.line(
    "Values that could not be typed (stored as null, kept in raw; see etl.sync_runs.untyped_values):",
  );
  for (const line of table([["stream", "field", "expected", "values", "examples"], ...rows])) {
    out.line(`  ${line}`);
  }
}

/**
 * The one-shot sync: every stream (or those named), in the foreground. Daily streams cover
 * --from..--to, or incrementally what was never synced plus the lookback window.
 */
export async function syncCommand(options: SyncOptions, out: Output): Promise<ExitCode> {
  const config = loadConfig();
  const range = parseDayRange(options);
  const streams = selectStreams(parseList(options.only));
  await ensureDatabase(config.env.DATABASE_URL);
  const db = createWarehouse(config.env.DATABASE_URL);
  const context = await createAppContext(config);
  const started = performance.now();
  try {
    await migrateToLatest(db);
    const deps = {
      db,
      api: context.api,
      logger: context.logger,
      config: config.etl,
      today: utcToday(),
    };
    let summaries: StreamSummary[];
    try {
      summaries = await runSync(deps, streams, range);
    } catch (error) {
      if (error instanceof AuthError) {
        out.line(`error: ${error.message}`);
        return ExitCode.auth;
      }
      throw error;
    }
    const failed = summaries.flatMap((s) => s.failed);
    const total = {
      stream: "total",
      partitions: summaries.reduce((n, s) => n + s.partitions, 0),
      failed: failed.length,
      requests: summaries.reduce((n, s) => n + s.requests, 0),
      rowsWritten: summaries.reduce((n, s) => n + s.rowsWritten, 0),
      durationMs: performance.now() - started,
    };
    for (const line of table([
      ["stream", "partitions", "failed", "requests", "rows", "seconds"],
      ...summaries.map((s) => summaryRow({ ...s, failed: s.failed.length })),
      summaryRow(total),
    ])) {
      out.line(line);
    }
    reportUntyped(summaries, out);
    if (failed.length > 0) {
      out.line("");
      out.line(`${failed.length} partitions failed:`);
      for (const f of failed) {
        out.line(
          `  ${f.stream} ${f.partition}: ${f.error instanceof Error ? f.error.message : String(f.error)}`,
        );
      }
      return ExitCode.failure;
    }
    return ExitCode.ok;
  } finally {
    await context.close();
    await db.destroy();
  }
}
