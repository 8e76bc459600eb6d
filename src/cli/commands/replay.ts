import { loadAppConfig } from "../load-app-config.js";
import { linkPath } from "../../http/link-path.js";
import { createLogger } from "../../logging/logger.js";
import { selectStreams } from "../../streams/registry.js";
import { runReplay } from "../../runner/replay/run-replay.js";
import { utcToday } from "../../time/calendar.js";
import { createWarehouse } from "../../warehouse/database.js";
import { migrateToLatest } from "../../warehouse/migrate.js";
import { type DayRangeOptions, parseDayRange, parseList } from "../day-range-options.js";
import { ExitCode } from "../exit-codes.js";
import type { Output } from "../output.js";
import { printSummaries, runRecordedLine } from "../run-summary.js";
import { settledExitCode, settlementLines } from "../role-lines.js";
import { settledForegroundRun } from "../../runner/recorded-sync.js";
import { listenForStop } from "../stop-signal.js";

export interface ReplayOptions extends DayRangeOptions {
  readonly only?: string;
}

/**
 * Derives the typed tables again from the stored responses, with no upstream request: after a
 * reader was fixed or changed, without re-fetching what took hours of rate-limited requests.
 */
export async function replayCommand(options: ReplayOptions, out: Output): Promise<ExitCode> {
  const config = loadAppConfig({ upstream: false });
  const range = parseDayRange(options);
  const streams = selectStreams(parseList(options.only));
  const db = createWarehouse(config.env.DATABASE_URL);
  const started = performance.now();
  const apiUrl = config.env.MUSIC_API_URL;
  const stop = listenForStop();
  try {
    await migrateToLatest(db);
    const deps = {
      db,
      logger: createLogger({
        level: config.env.LOG_LEVEL,
        secrets: [config.env.MUSIC_API_KEY ?? ""],
      }),
      config: config.etl,
      today: utcToday(),
      signal: stop.signal,
      // Without the upstream's URL no link can be told the upstream's: none is taken as such.
      ownsLink: (link: string) => apiUrl !== undefined && linkPath(apiUrl, link) !== null,
    };
    const run = await settledForegroundRun(
      deps,
      { kind: "replay", streams: streams.map((s) => s.name), range },
      () => stop.signal.aborted,
      (runId) => runReplay({ ...deps, run: runId }, streams, range),
    );
    const code = printSummaries(run.result, performance.now() - started, out);
    for (const line of settlementLines(run.settlement)) out.line(line);
    out.line("");
    out.line(runRecordedLine(run.runId));
    return stop.signal.aborted ? ExitCode.interrupted : settledExitCode(code, run.settlement);
  } finally {
    stop.dispose();
    await db.destroy();
  }
}
