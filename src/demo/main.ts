/**
 * `npm run demo`: the bundled sandbox upstream synced into a demo database through the real
 * pipeline (client, shared Redis budget, runner, warehouse), then what landed and one analytics
 * query. Needs this machine's Postgres and Redis; says which is missing and how to start it.
 */
import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import pg from "pg";
import { createAppContext } from "../app-context.js";
import { displayUrl } from "../config/display-url.js";
import { envSchema } from "../config/env-schema.js";
import { etlConfigSchema } from "../config/etl-config-schema.js";
import { startSandbox } from "../sandbox/index.js";
import { sandboxTracking } from "./sandbox-tracking.js";
import { STREAMS } from "../streams/registry.js";
import { runSync } from "../streams/run-sync.js";
import { createWarehouse } from "../warehouse/database.js";
import { migrateToLatest } from "../warehouse/migrate.js";
import { pgConnectionConfig } from "../warehouse/pg-connection-config.js";

const env = envSchema.parse({ MUSIC_API_URL: undefined, ...process.env, LOG_LEVEL: "warn" });
const DEMO_DATABASE = "music_etl_demo";
const TODAY = "2026-01-31";

async function reachable(check: () => Promise<unknown>): Promise<boolean> {
  try {
    await check();
    return true;
  } catch {
    return false;
  }
}

async function withClient<T>(url: string, run: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ ...pgConnectionConfig(url), connectionTimeoutMillis: 3_000 });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
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

/** The demo database, recreated empty so every run shows the same thing. */
async function freshDemoDatabase(): Promise<string> {
  const url = new URL(env.DATABASE_URL);
  url.pathname = "/postgres";
  await withClient(url.toString(), async (client) => {
    await client.query(`drop database if exists ${DEMO_DATABASE} with (force)`);
    await client.query(`create database ${DEMO_DATABASE}`);
  });
  url.pathname = `/${DEMO_DATABASE}`;
  return url.toString();
}

function print(line = ""): void {
  process.stdout.write(`${line}\n`);
}

async function main(): Promise<number> {
  const maintenance = new URL(env.DATABASE_URL);
  maintenance.pathname = "/postgres";
  const missing = [
    (await reachable(() => withClient(maintenance.toString(), (c) => c.query("select 1"))))
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
    return 1;
  }

  const sandbox = await startSandbox({ apiKey: randomBytes(16).toString("hex"), today: TODAY });
  const data = sandbox.data;
  const prefix = `music-etl-demo:${randomBytes(4).toString("hex")}:`;
  const config = etlConfigSchema.parse({
    ...sandboxTracking(data),
    requests_per_second: 200,
    max_concurrency: 8,
    redis_prefix: prefix,
  });
  const databaseUrl = await freshDemoDatabase();
  const db = createWarehouse(databaseUrl);
  const context = await createAppContext({
    env: { ...env, MUSIC_API_URL: sandbox.url, MUSIC_API_KEY: sandbox.apiKey },
    etl: config,
    configPath: "(demo)",
  });
  try {
    await migrateToLatest(db);
    const to = data.size.startDate.slice(0, 8) + String(data.size.days).padStart(2, "0");
    print(`sandbox upstream ${sandbox.url} -> ${displayUrl(databaseUrl)}`);
    print(
      `syncing ${data.size.startDate}..${to}, ${config.requests_per_second} req/s at most, ${config.max_concurrency} at once\n`,
    );
    const width = Math.max(...STREAMS.map((s) => s.name.length));
    const started = performance.now();
    const summaries = await runSync(
      { db, api: context.api, logger: context.logger, config, today: TODAY },
      STREAMS,
      { from: data.size.startDate, to },
      (s) =>
        print(
          `  ${s.stream.padEnd(width)} ${String(s.partitions).padStart(5)} partitions  ${String(s.requests).padStart(5)} requests  ${String(s.rowsWritten).padStart(7)} rows  ${(s.durationMs / 1000).toFixed(1).padStart(5)} s${s.failed.length ? `  ${s.failed.length} FAILED` : ""}`,
        ),
    );
    const seconds = (performance.now() - started) / 1000;
    const requests = summaries.reduce((n, s) => n + s.requests, 0);
    const failed = summaries.reduce((n, s) => n + s.failed.length, 0);
    print(`\n${requests} requests in ${seconds.toFixed(1)} s, ${failed} failed partitions\n`);

    await withClient(databaseUrl, async (client) => {
      const tables = await client.query<{ name: string }>(
        `select schemaname || '.' || relname as name from pg_stat_user_tables
         where schemaname in ('catalogue', 'sales', 'artist_stats', 'royalties') order by 1`,
      );
      print("rows per table");
      for (const { name } of tables.rows) {
        const [schema, table] = name.split(".") as [string, string];
        const { rows } = await client.query<{ n: string }>(
          `select count(*)::text as n from ${pg.escapeIdentifier(schema)}.${pg.escapeIdentifier(table)}`,
        );
        print(`  ${name.padEnd(38)} ${(rows[0]?.n ?? "0").padStart(8)}`);
      }
      const query = `select a.isrc, a.title, sum(i.count) as streams
  from sales.trend_items i
  join catalogue.assets a on a.asset_id::text = i.item_id
 where i.selection_type = 'asset' and i.sale_type = 'stream'
 group by a.isrc, a.title
 order by streams desc
 limit 5`;
      print(`\ntop assets by streams over the period:\n${query}\n`);
      const top = await client.query<{ isrc: string; title: string | null; streams: string }>(
        query,
      );
      for (const row of top.rows) {
        print(`  ${row.isrc}  ${String(row.streams).padStart(10)}  ${row.title ?? ""}`);
      }
    });
    return failed > 0 ? 1 : 0;
  } finally {
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
