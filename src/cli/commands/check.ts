import pg from "pg";
import { type AppContext, createAppContext } from "../../app-context.js";
import { toText } from "../../api/read-values.js";
import { displayUrl } from "../../config/display-url.js";
import type { AppConfig } from "../../config/load-config.js";
import { loadAppConfig } from "../load-app-config.js";
import { outageText } from "../../http/upstream-outage.js";
import { AuthError, RateLimitedError } from "../../http/upstream-errors.js";
import { errorMessage } from "../../errors.js";
import { describeRate } from "../../http/auto-rate.js";
import { createLogger, type Logger } from "../../logging/logger.js";
import { isMissingDatabase, missingDatabaseMessage } from "../../warehouse/missing-database.js";
import { pgConnectionConfig } from "../../warehouse/pg-connection-config.js";
import { ExitCode } from "../exit-codes.js";
import { unknownTrackedIds } from "../unknown-tracked-ids.js";
import { rateLimitAdvice } from "../rate-limit-advice.js";
import { recordedRolesIfAny } from "../../analytics/role-records.js";
import { createWarehouse } from "../../warehouse/database.js";
import { recordedRoleLines } from "../role-lines.js";
import { connectionProblem } from "../unreachable-service.js";
import type { Output } from "../output.js";
import { getTerritoriesOperation } from "../../streams/catalogue/territories.js";

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

/**
 * How long check waits for each dependency, once: a wrong address fails within seconds, not after
 * the retries a sync would make (check's question is "is this configured right", not "wait").
 */
export const CHECK_DEADLINE_MS = 5_000;

/** A failed check's detail: the variable that says where, with its value, then what happened. */
function failedAt(variable: string, url: string, problem: string): string {
  return `${variable}=${displayUrl(url)}: ${problem}`;
}

async function checkPostgres(url: string): Promise<[boolean, string]> {
  const client = new pg.Client({
    ...pgConnectionConfig(url),
    connectionTimeoutMillis: CHECK_DEADLINE_MS,
  });
  try {
    await client.connect();
    const { rows } = await client.query<{ version: string }>(
      "select current_setting('server_version') as version",
    );
    return [true, `${displayUrl(url)} (PostgreSQL ${rows[0]?.version})`];
  } catch (error) {
    if (isMissingDatabase(error)) {
      // A failure: every command but migrate stops on it, and a typo here is a second warehouse.
      return [false, failedAt("DATABASE_URL", url, missingDatabaseMessage(error as Error))];
    }
    return [false, failedAt("DATABASE_URL", url, connectionProblem(error))];
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * Validates the configuration, then checks each dependency once, calls one cheap upstream
 * operation (a territory lookup) and looks up each configured UPC and artist id, printing one
 * line per check. A request the upstream refuses with a 429 waits what it asks, once.
 */
export async function checkCommand(
  out: Output,
  options: { readonly notify?: boolean } = {},
): Promise<ExitCode> {
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
    return await checkDependencies(out, config, pgOk, logger, options.notify ?? false);
  } finally {
    for (const line of held) process.stderr.write(line);
  }
}

/**
 * The roles of the analytics views as the warehouse last resolved them: a warning per role the
 * views cannot rely on, with what settles it. Nothing yet before the first `etl migrate`.
 */
async function checkRoles(out: Output, url: string): Promise<void> {
  const db = createWarehouse(url, { maxConnections: 1 });
  try {
    const recorded = await recordedRolesIfAny(db);
    if (recorded === null) {
      out.line("roles     -     the warehouse is not migrated yet: `etl migrate` resolves them");
      return;
    }
    const { summary, warnings } = recordedRoleLines(recorded);
    out.line(`roles     ${warnings.length === 0 ? "ok  " : "WARN"}  ${summary}`);
    for (const warning of warnings) out.line(`          ${warning}`);
  } finally {
    await db.destroy();
  }
}

/** `--notify`: a test notification to every target, one try each; a line per target. */
async function checkNotifications(out: Output, context: AppContext): Promise<boolean> {
  const at = new Date();
  const results = await context.notifier.test({
    event: "test",
    key: at.toISOString(),
    at,
    summary: "a test notification from `etl check --notify`: this target receives music-etl's",
    command: "npx etl check --notify",
  });
  if (results.length === 0) {
    out.line("notify    FAIL  no target: `notifications` in the config lists none");
    return false;
  }
  for (const { target, problem } of results) {
    out.line(
      problem === null
        ? `notify    ok    ${target}: the test notification was accepted`
        : `notify    FAIL  ${target}: ${problem}`,
    );
  }
  return results.every((r) => r.problem === null);
}

/** What the upstream's last 429 said, with the rate the budget sent at (see rateLimitAdvice). */
async function rateLimitLine(
  context: AppContext,
  config: AppConfig,
  answer: RateLimitedError,
): Promise<string> {
  const used = await context.budget.currentRate();
  return rateLimitAdvice(config.etl.requests_per_second, used, answer, config.configPath);
}

async function checkTrackedIds(
  out: Output,
  context: AppContext,
  config: AppConfig,
): Promise<boolean> {
  const { looked, unknown, rateLimited, failed } = await unknownTrackedIds(context.api, config.etl);
  if (looked === 0) return true;
  if (unknown.length > 0) {
    out.line(
      `tracked   FAIL  not known upstream: ${unknown.join(", ")}; correct or remove ${unknown.length === 1 ? "it" : "them"} in ${config.configPath}`,
    );
  }
  // A look-up that failed is neither known nor unknown: counted apart, with why.
  if (rateLimited) {
    const advice = await rateLimitLine(context, config, rateLimited.answer);
    out.line(`tracked   FAIL  ${rateLimited.count} of ${looked} look-ups ${advice}`);
  }
  if (failed.length > 0) {
    out.line(
      `tracked   FAIL  ${failed.length} of ${looked} look-ups failed, so not known either way: ${failed.join("; ")}`,
    );
  }
  if (unknown.length > 0 || rateLimited || failed.length > 0) return false;
  out.line(`tracked   ok    ${looked} UPCs and artist ids, each known upstream`);
  return true;
}

/**
 * The upstream: not declared down, and one territory look-up answered. The exit code of its
 * failure, or null when it answered.
 */
async function checkUpstream(
  out: Output,
  context: AppContext,
  config: AppConfig,
): Promise<ExitCode | null> {
  const { env, etl } = config;
  // Declared down by the workers: a request would wait for its end, not fail fast.
  const outage = await context.http.outage.standing();
  if (outage) {
    out.line(
      `upstream  FAIL  ${failedAt("MUSIC_API_URL", env.MUSIC_API_URL ?? "", outageText(outage))}`,
    );
    return ExitCode.failure;
  }
  const key = etl.territory_keys[0] ?? "all";
  const started = performance.now();
  try {
    const { records } = await context.api.call(getTerritoriesOperation, { key });
    const ms = Math.round(performance.now() - started);
    const sample = records
      .slice(0, 3)
      .map((t) => toText(t.name) ?? toText(t.code) ?? "?")
      .join(", ");
    out.line(
      `upstream  ok    ${env.MUSIC_API_URL}: ${records.length} territories for key "${key}" in ${ms} ms${sample ? ` (${sample}...)` : ""}`,
    );
  } catch (error) {
    // A refused key names MUSIC_API_KEY itself, a rate limit requests_per_second; anything
    // else is where the upstream is.
    const problem =
      error instanceof RateLimitedError
        ? await rateLimitLine(context, config, error)
        : errorMessage(error);
    const detail =
      error instanceof AuthError
        ? `${env.MUSIC_API_URL}: ${error.message}`
        : failedAt("MUSIC_API_URL", env.MUSIC_API_URL ?? "", problem);
    out.line(`upstream  FAIL  ${detail}`);
    return error instanceof AuthError ? ExitCode.auth : ExitCode.failure;
  }
  return null;
}

async function checkDependencies(
  out: Output,
  config: AppConfig,
  pgOk: boolean,
  logger: Logger,
  notify: boolean,
): Promise<ExitCode> {
  const { env, etl } = config;
  let context: AppContext;
  try {
    context = await createAppContext(config, {
      logger,
      redisConnectTimeoutMs: CHECK_DEADLINE_MS,
      // One try each, but a 429 waits what it asks and is sent once more, as in a run: a limit
      // that waiting keeps to does not fail check.
      http: {
        maxRetries: 0,
        rateLimitRetries: 1,
        timeoutMs: Math.min(etl.request_timeout_ms, CHECK_DEADLINE_MS),
      },
    });
  } catch (error) {
    out.line(`redis     FAIL  ${failedAt("REDIS_URL", env.REDIS_URL, connectionProblem(error))}`);
    return ExitCode.failure;
  }
  try {
    out.line(
      `redis     ok    ${displayUrl(env.REDIS_URL)} (request budget ${context.budget.sharedBy})`,
    );
    const upstreamFailure = await checkUpstream(out, context, config);
    if (upstreamFailure !== null) return upstreamFailure;
    const trackedOk = await checkTrackedIds(out, context, config);
    if (pgOk) await checkRoles(out, env.DATABASE_URL);
    const notifyOk = !notify || (await checkNotifications(out, context));
    return pgOk && trackedOk && notifyOk ? ExitCode.ok : ExitCode.failure;
  } finally {
    await context.close();
  }
}
