/**
 * `npm run demo`: the bundled sandbox upstream, and the real client stack (shared Redis budget,
 * retries, tolerant parsing) reading every operation family from it, with a summary of what
 * came back. Needs only Redis.
 */
import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import type { ApiClient } from "../api/api-client.js";
import { createAppContext } from "../app-context.js";
import { displayUrl } from "../config/display-url.js";
import { envSchema } from "../config/env-schema.js";
import { etlConfigSchema } from "../config/etl-config-schema.js";
import { startSandbox } from "../sandbox/index.js";

const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";

async function redisReachable(url: string): Promise<boolean> {
  const redis = new Redis(url, {
    lazyConnect: true,
    connectTimeout: 3_000,
    maxRetriesPerRequest: 0,
  });
  redis.on("error", () => undefined);
  try {
    await redis.connect();
    return (await redis.ping()) === "PONG";
  } catch {
    return false;
  } finally {
    redis.disconnect();
  }
}

interface Row {
  readonly operation: string;
  readonly calls: number;
  /** What came back, with its unit: "40 territories". */
  readonly result: string;
}

/** Pages an offset/limit list to its end: the calls made and the records read. */
async function pageAll(
  fetchPage: (offset: number, limit: number) => Promise<number>,
  limit: number,
  unit: string,
) {
  let calls = 0;
  let records = 0;
  for (let offset = 0; ; offset += limit) {
    const count = await fetchPage(offset, limit);
    calls += 1;
    records += count;
    if (count < limit) return { calls, result: `${records} ${unit}` };
  }
}

async function tour(api: ApiClient, day: string, cmArtist: number): Promise<Row[]> {
  const range = { start_date: `${day}T00:00:00`, end_date: `${day}T23:59:59` };
  const one = (operation: string, count: number, unit: string): Row => ({
    operation,
    calls: 1,
    result: `${count.toLocaleString("en-US")} ${unit}`,
  });
  const territories = await api.catalogue.getTerritories({ key: "all" });
  const dsps = await api.catalogue.getDsps({ key: "all" });
  const totals = await api.trends.getTrendsTotal({
    selection_type: "dsp",
    start_date: day,
    end_date: day,
  });
  const chart = await api.trends.getTrendsChart({
    selection_type: "territory",
    sale_type: "download",
    ...range,
  });
  const stat = await api.artistStats.stat({ source: "music_streaming_1", artist_id: cmArtist });
  return [
    one("catalogue.getTerritories", territories.records.length, "territories"),
    one("catalogue.getDsps", dsps.records.length, "DSPs"),
    {
      operation: 'catalogue.getProductByUpc "0"',
      ...(await pageAll(
        async (offset, size) =>
          (await api.catalogue.getProductByUpc({ upc: "0", page: offset / size, page_size: size }))
            .records.length,
        100,
        "products",
      )),
    },
    one(`trends.total dsp ${day}`, totals.streamCount ?? 0, "streams"),
    {
      operation: `trends.list asset stream ${day}`,
      ...(await pageAll(
        async (offset, size) =>
          (
            await api.trends.getTrendsList({
              selection_type: "asset",
              sale_type: "stream",
              ...range,
              offset,
              size,
            })
          ).items.length,
        100,
        "assets",
      )),
    },
    one(`trends.chart territory download ${day}`, chart.series.length, "series"),
    one("artistStats.stat music_streaming_1", stat.points.length, "points"),
    {
      operation: "artistStats.editorialPlaylists",
      ...(await pageAll(
        async (offset, limit) =>
          (
            await api.artistStats.editorialPlaylists({
              artist_id: cmArtist,
              platform: "music_streaming_1",
              status: "current",
              offset,
              limit,
            })
          ).records.length,
        50,
        "placements",
      )),
    },
    {
      operation: `artistStats.charts GLOBAL ${day}`,
      ...(await pageAll(
        async (offset, limit) =>
          (
            await api.artistStats.charts({
              country_code: "GLOBAL",
              genre: "All Genres",
              date: day,
              offset,
              limit,
            })
          ).records.length,
        100,
        "chart rows",
      )),
    },
    one("royalties.listPayouts", (await api.royalties.listPayouts()).payouts.length, "payouts"),
    one("royalties.listIncomes", (await api.royalties.listIncomes()).records.length, "incomes"),
  ];
}

async function main(): Promise<number> {
  if (!(await redisReachable(REDIS_URL))) {
    process.stderr.write(
      `Redis is not reachable at ${displayUrl(REDIS_URL)}.\n` +
        "Start it with `docker compose up -d redis` (or set REDIS_URL), then run `npm run demo` again.\n",
    );
    return 1;
  }
  const sandbox = await startSandbox({
    apiKey: randomBytes(16).toString("hex"),
    today: "2026-01-31",
  });
  const prefix = `music-etl-demo:${randomBytes(4).toString("hex")}:`;
  const context = await createAppContext({
    env: envSchema.parse({
      MUSIC_API_URL: sandbox.url,
      MUSIC_API_KEY: sandbox.apiKey,
      REDIS_URL,
      LOG_LEVEL: "warn",
    }),
    etl: etlConfigSchema.parse({
      start_date: "2026-01-01",
      requests_per_second: 50,
      max_concurrency: 8,
      redis_prefix: prefix,
    }),
    configPath: "(demo)",
  });
  try {
    process.stdout.write(
      `sandbox upstream at ${sandbox.url}; budget 50 req/s shared through ${displayUrl(REDIS_URL)}\n\n`,
    );
    const started = performance.now();
    const cmArtist = sandbox.data.socialArtists()[0]?.cm_artist ?? 0;
    const rows = await tour(context.api, "2026-01-15", cmArtist);
    const seconds = (performance.now() - started) / 1000;
    const width = Math.max(...rows.map((r) => r.operation.length));
    process.stdout.write(`${"operation".padEnd(width)}  calls  result\n`);
    for (const row of rows) {
      process.stdout.write(
        `${row.operation.padEnd(width)}  ${String(row.calls).padStart(5)}  ${row.result}\n`,
      );
    }
    const stats = sandbox.stats();
    process.stdout.write(
      `\n${stats.requests} requests in ${seconds.toFixed(1)} s, at most ${stats.maxPerSecond} in any second, ` +
        `${stats.rateLimited} rate-limited, peak ${stats.peakConcurrency} in flight\n`,
    );
    return 0;
  } finally {
    await context.close();
    await sandbox.close();
    const redis = new Redis(REDIS_URL);
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
  }
}

process.exitCode = await main();
