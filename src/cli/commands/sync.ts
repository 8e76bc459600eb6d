import { createAppContext } from "../../app-context.js";
import { notifyRunEnded } from "../../jobs/run-notifications.js";
import { loadAppConfig } from "../load-app-config.js";
import { AuthError } from "../../http/upstream-errors.js";
import { type RecordedRun, recordedSync } from "../../runner/recorded-sync.js";
import { selectStreams } from "../../streams/registry.js";
import { utcToday } from "../../time/calendar.js";
import { createWarehouse } from "../../warehouse/database.js";
import { migrateToLatest } from "../../warehouse/migrate.js";
import { pruneResponses } from "../../warehouse/responses.js";
import { type DayRangeOptions, parseDayRange, parseList } from "../day-range-options.js";
import { ExitCode } from "../exit-codes.js";
import type { Output } from "../output.js";
import { radioHistoryNote } from "../radio-history-note.js";
import { startDateNote } from "../start-date-note.js";
import { printSummaries, runRecordedLine } from "../run-summary.js";
import { settledExitCode, settlementLines } from "../role-lines.js";
import { listenForStop } from "../stop-signal.js";

export interface SyncOptions extends DayRangeOptions {
  readonly only?: string;
}

/**
 * The one-shot sync: every stream (or those named), in the foreground. Daily streams cover
 * --from..--to, or incrementally what was never synced plus the lookback. SIGTERM or
 * SIGINT stops it: running partitions are recorded as interrupted, and only then are the
 * database and the upstream's connections closed.
 */
export async function syncCommand(options: SyncOptions, out: Output): Promise<ExitCode> {
  const config = loadAppConfig();
  const range = parseDayRange(options);
  const streams = selectStreams(parseList(options.only));
  const db = createWarehouse(config.env.DATABASE_URL);
  const context = await createAppContext(config, {
    http: { outageWaitMs: config.etl.outage_wait_ms },
  });
  const started = performance.now();
  const stop = listenForStop();
  try {
    await migrateToLatest(db);
    const deps = {
      db,
      api: context.api,
      logger: context.logger,
      config: config.etl,
      today: utcToday(),
      signal: stop.signal,
    };
    const radio = radioHistoryNote(config.etl, streams, range, deps.today);
    if (radio) out.line(radio);
    const early = startDateNote(config.etl, range);
    if (early) out.line(early);
    let run: RecordedRun;
    try {
      run = await recordedSync(
        deps,
        streams,
        range,
        () => stop.signal.aborted,
        (runId, end) => notifyRunEnded(context.notifier, db, { runId, kind: "sync", ...end }),
      );
    } catch (error) {
      if (error instanceof AuthError) {
        out.line(`error: ${error.message}`);
        return ExitCode.auth;
      }
      throw error;
    }
    if (config.etl.keep_responses_days !== null && !stop.signal.aborted) {
      await pruneResponses(db, config.etl.keep_responses_days);
    }
    const code = printSummaries(run.result, performance.now() - started, out);
    for (const line of settlementLines(run.settlement)) out.line(line);
    out.line("");
    out.line(runRecordedLine(run.runId));
    return stop.signal.aborted ? ExitCode.interrupted : settledExitCode(code, run.settlement);
  } finally {
    stop.dispose();
    await context.close();
    await db.destroy();
  }
}
