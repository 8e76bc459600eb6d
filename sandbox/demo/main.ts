/**
 * `npm run demo`: the bundled sandbox upstream synced through the real pipeline (client, shared
 * Redis budget, runner, warehouse) into a database the demo makes and marks as its own
 * (`--database` / DEMO_DATABASE), then what landed and one analytics query. Needs this machine's
 * Postgres and Redis; says which is missing and how to start it.
 */
import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import pg from "pg";
import { createAppContext } from "../../src/app-context.js";
import { displayUrl } from "../../src/config/display-url.js";
import { envSchema } from "../../src/config/env-schema.js";
import { etlConfigSchema } from "../../src/config/etl-config-schema.js";
import { describeRate } from "../../src/http/auto-rate.js";
import { startSandbox } from "../index.js";
import { databaseOnServer, withClient } from "./database-client.js";
import { DemoDatabaseRefused, freshDemoDatabase } from "./demo-database.js";
import { DEMO_USAGE, DemoUsageError, demoOptions, type DemoOptions } from "./demo-options.js";
import { resultLines } from "./result-lines.js";
import { sandboxTracking } from "./sandbox-tracking.js";
import { STREAMS } from "../../src/streams/registry.js";
import { createEtlQueue } from "../../src/jobs/etl-queue.js";
import { enqueueRun } from "../../src/jobs/enqueue-run.js";
import { credentialGateOf } from "../../src/jobs/credential-gate.js";
import { dependencyGateOf } from "../../src/jobs/dependency-gate.js";
import { startEtlWorker } from "../../src/jobs/start-worker.js";
import { ExitCode } from "../../src/cli/exit-codes.js";
import { followRun, standardOutput } from "../../src/cli/follow-run.js";
import { settleRoles } from "../../src/analytics/settle-roles.js";
import { table } from "../../src/cli/output.js";
import { addDays } from "../../src/time/calendar.js";
import { createWarehouse } from "../../src/warehouse/database.js";
import { migrateToLatest } from "../../src/warehouse/migrate.js";

const env = envSchema.parse({ MUSIC_API_URL: undefined, ...process.env, LOG_LEVEL: "warn" });
const TODAY = "2026-01-31";

async function reachable(check: () => Promise<unknown>): Promise<boolean> {
  try {
    await check();
    return true;
  } catch {
    return false;
  }
}

async function redisPing(url: string): Promise<void> {
  const redis = new Redis(url, {
    lazyConnect: true,
    connectTimeout: 3_000,
    maxRetriesPerRequest: 0,
  });
  redis.on("error", () => undefined);
  try {
    await redis.connect();
    await redis.ping();
  } finally {
    redis.disconnect();
  }
}

function print(line = ""): void {
  process.stdout.write(`${line}\n`);
}

async function main(): Promise<number> {
  let options: DemoOptions | null;
  try {
    options = demoOptions(process.argv.slice(2), process.env);
  } catch (error) {
    if (!(error instanceof DemoUsageError)) throw error;
    process.stderr.write(`${error.message}\n`);
    return ExitCode.usage;
  }
  if (options === null) {
    print(DEMO_USAGE);
    return ExitCode.ok;
  }
  const maintenance = databaseOnServer(env.DATABASE_URL, "postgres");
  const missing = [
    (await reachable(() => withClient(maintenance, (c) => c.query("select 1"))))
      ? null
      : `PostgreSQL at ${displayUrl(env.DATABASE_URL)}`,
    (await reachable(() => redisPing(env.REDIS_URL)))
      ? null
      : `Redis at ${displayUrl(env.REDIS_URL)}`,
  ].filter((what) => what !== null);
  if (missing.length > 0) {
    process.stderr.write(
      `Not reachable: ${missing.join(" and ")}.\n` +
        "Start them with `docker compose up -d postgres redis` (or set DATABASE_URL / REDIS_URL), then run `npm run demo` again.\n",
    );
    return ExitCode.failure;
  }
  // Before anything starts, so a refused database leaves nothing to stop.
  let databaseUrl: string;
  try {
    databaseUrl = await freshDemoDatabase(env.DATABASE_URL, options.database);
  } catch (error) {
    if (!(error instanceof DemoDatabaseRefused)) throw error;
    process.stderr.write(error.message);
    return ExitCode.usage;
  }

  const sandbox = await startSandbox({ apiKey: randomBytes(16).toString("hex"), today: TODAY });
  const data = sandbox.data;
  const prefix = `music-etl-demo:${randomBytes(4).toString("hex")}:`;
  const config = etlConfigSchema.parse({
    ...sandboxTracking(data),
    requests_per_second: 200,
    max_concurrency: 8,
    worker_concurrency: 8,
    job_backoff_ms: 1_000,
    redis_prefix: prefix,
  });
  const db = createWarehouse(databaseUrl);
  await migrateToLatest(db);
  await settleRoles(db, config.roles);
  const context = await createAppContext({
    env: { ...env, MUSIC_API_URL: sandbox.url, MUSIC_API_KEY: sandbox.apiKey },
    etl: config,
    configPath: "(demo)",
  });
  const queue = createEtlQueue(env.REDIS_URL, config);
  const worker = startEtlWorker({
    redisUrl: env.REDIS_URL,
    config,
    logger: context.logger,
    deps: {
      queue,
      redis: context.redis,
      credential: credentialGateOf(context, config),
      upstream: context.http.outage,
      notifier: context.notifier,
      dependencies: dependencyGateOf({
        db,
        redis: context.redis,
        databaseUrl,
        redisUrl: env.REDIS_URL,
        logger: context.logger,
      }),
      runner: { db, api: context.api, logger: context.logger, config },
    },
  });
  try {
    const to = addDays(data.size.startDate, data.size.days - 1);
    print(`sandbox upstream ${sandbox.url} -> ${displayUrl(databaseUrl)}`);
    print(
      `backfill ${data.size.startDate}..${to} through the queue, one worker; ${describeRate(config.requests_per_second)} at most, ${config.max_concurrency} at once\n`,
    );
    const { runId } = await enqueueRun(queue, {
      kind: "backfill",
      streams: STREAMS.map((s) => s.name),
      range: { from: data.size.startDate, to },
    });
    const completed = await followRun(queue, runId, standardOutput());
    // The worker settles the roles as it records the run's end, after the job this followed.
    await settleRoles(db, config.roles);

    await withClient(databaseUrl, async (client) => {
      const runs = await client.query<Record<string, string>>(
        `select stream, count(*)::text as partitions, sum(requests)::text as requests,
                sum(rows_written)::text as rows, count(*) filter (where status <> 'succeeded')::text as failed
           from etl.attempts group by stream order by min(attempt_id)`,
      );
      print("\nper stream (etl.attempts)");
      for (const line of table([
        ["stream", "partitions", "failed", "requests", "rows written"],
        ...runs.rows.map((r) => [
          r.stream ?? "",
          r.partitions ?? "",
          r.failed ?? "",
          r.requests ?? "",
          r.rows ?? "",
        ]),
      ])) {
        print(`  ${line}`);
      }
      const tables = await client.query<{ name: string }>(
        `select schemaname || '.' || relname as name from pg_stat_user_tables
         where schemaname in ('catalogue', 'sales', 'artist_stats', 'royalties') order by 1`,
      );
      print("\nrows per table");
      for (const { name } of tables.rows) {
        const [schema, table] = name.split(".") as [string, string];
        const { rows } = await client.query<{ n: string }>(
          `select count(*)::text as n from ${pg.escapeIdentifier(schema)}.${pg.escapeIdentifier(table)}`,
        );
        print(`  ${name.padEnd(38)} ${(rows[0]?.n ?? "0").padStart(8)}`);
      }
      const query = `select isrc, title, sum(streams) as streams
  from analytics.asset_daily_streams
 group by isrc, title
 order by streams desc nulls last
 limit 5`;
      print(`\ntop assets by streams over the period:\n${query}\n`);
      for (const line of resultLines(await client.query(query))) print(`  ${line}`);
    });
    return completed ? ExitCode.ok : ExitCode.failure;
  } finally {
    await worker.stop(config.shutdown_grace_ms);
    await queue.close();
    await context.close();
    await db.destroy();
    await sandbox.close();
    const redis = new Redis(env.REDIS_URL);
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
  }
}

process.exitCode = await main();
