import pg from "pg";
import { createAppContext } from "../../app-context.js";
import { toText } from "../../api/read-values.js";
import { displayUrl } from "../../config/display-url.js";
import type { AppConfig } from "../../config/load-config.js";
import { loadAppConfig } from "../load-app-config.js";
import { AuthError } from "../../errors.js";
import { describeRate } from "../../http/auto-rate.js";
import { createLogger, type Logger } from "../../logging/logger.js";
import { isMissingDatabase, missingDatabaseMessage } from "../../warehouse/missing-database.js";
import { pgConnectionConfig } from "../../warehouse/pg-connection-config.js";
import { ExitCode } from "../exit-codes.js";
import type { Output } from "../output.js";

function describeTracking(config: AppConfig): string {
  const { etl } = config;
  const counts: [string, number][] = [
    ["UPCs", etl.upcs.length],
    ["artist names", etl.artist_names.length],
    ["territory keys", etl.territory_keys.length],
    ["DSP keys", etl.dsp_keys.length],
    ["social artist ids", etl.social_artist_ids.length],
    ["streaming artist ids", etl.streaming_artist_ids.length],
    ["charts", etl.charts.length],
  ];
  const tracked = counts.map(([what, n]) => `${n} ${what}`).join(", ");
  const rate =
    typeof etl.requests_per_second === "number"
      ? `${etl.requests_per_second} req/s`
      : `${describeRate(etl.requests_per_second)} (the upstream's stated limit, else probed)`;
  return `from ${etl.start_date}; ${tracked}; ${rate}, ${etl.max_concurrency} at once`;
}

async function checkPostgres(url: string): Promise<[boolean, string]> {
  const client = new pg.Client({ ...pgConnectionConfig(url), connectionTimeoutMillis: 5_000 });
  try {
    await client.connect();
    const { rows } = await client.query<{ version: string }>(
      "select current_setting('server_version') as version",
    );
    return [true, `${displayUrl(url)} (PostgreSQL ${rows[0]?.version})`];
  } catch (error) {
    if (isMissingDatabase(error)) {
      // A failure: every command but migrate stops on it, and a typo here is a second warehouse.
      return [false, `${displayUrl(url)}: ${missingDatabaseMessage(error as Error)}`];
    }
    return [false, `${displayUrl(url)}: ${(error as Error).message}`];
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * Validates the configuration, then checks each dependency and calls one cheap upstream operation
 * (a territory lookup), printing one line per check.
 */
export async function checkCommand(out: Output): Promise<ExitCode> {
  const config = loadAppConfig();
  const { env } = config;
  out.line(`config    ok    ${config.configPath}: ${describeTracking(config)}`);

  const [pgOk, pgDetail] = await checkPostgres(env.DATABASE_URL);
  out.line(`postgres  ${pgOk ? "ok  " : "FAIL"}  ${pgDetail}`);

  // What the client logs while it checks is held and written after the table, not into it.
  const held: string[] = [];
  const logger = createLogger({
    level: env.LOG_LEVEL,
    secrets: [env.MUSIC_API_KEY ?? ""].filter(Boolean),
    destination: { write: (line: string) => void held.push(line) },
  });
  try {
    return await checkDependencies(out, config, pgOk, logger);
  } finally {
    for (const line of held) process.stderr.write(line);
  }
}

async function checkDependencies(
  out: Output,
  config: AppConfig,
  pgOk: boolean,
  logger: Logger,
): Promise<ExitCode> {
  const { env, etl } = config;
  let context: Awaited<ReturnType<typeof createAppContext>>;
  try {
    context = await createAppContext(config, { logger });
  } catch (error) {
    out.line(`redis     FAIL  ${displayUrl(env.REDIS_URL)}: ${(error as Error).message}`);
    return ExitCode.failure;
  }
  try {
    out.line(
      `redis     ok    ${displayUrl(env.REDIS_URL)} (request budget ${context.budget.scope})`,
    );
    const key = etl.territory_keys[0] ?? "all";
    const started = performance.now();
    try {
      const { records } = await context.api.catalogue.getTerritories({ key });
      const ms = Math.round(performance.now() - started);
      const sample = records
        .slice(0, 3)
        .map((t) => toText(t.name) ?? toText(t.code) ?? "?")
        .join(", ");
      out.line(
        `upstream  ok    ${env.MUSIC_API_URL}: ${records.length} territories for key "${key}" in ${ms} ms${sample ? ` (${sample}...)` : ""}`,
      );
    } catch (error) {
      out.line(`upstream  FAIL  ${env.MUSIC_API_URL}: ${(error as Error).message}`);
      return error instanceof AuthError ? ExitCode.auth : ExitCode.failure;
    }
    return pgOk ? ExitCode.ok : ExitCode.failure;
  } finally {
    await context.close();
  }
}
