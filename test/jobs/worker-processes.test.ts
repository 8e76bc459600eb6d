import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Queue } from "bullmq";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEtlQueue } from "../../jobs/etl-queue.js";
import { etlConfigSchema } from "../../src/config/etl-config-schema.js";
import { type Sandbox, startSandbox } from "../../src/sandbox/index.js";
import { daysBetween } from "../../src/time/calendar.js";
import { runCli } from "../helpers/cli.js";
import { deleteKeysWithPrefix, keysWithPrefix, REDIS_URL, uniquePrefix } from "../helpers/redis.js";
import { trendItemDifferences } from "../helpers/reconcile-trends.js";
import { makeTempDir } from "../helpers/temp-dir.js";
import { createTestWarehouse, type TestWarehouse } from "../helpers/warehouse.js";
import { spawnWorker, type WorkerProcess } from "../helpers/worker-process.js";

const RATE = 20;
const prefix = uniquePrefix("workers");
const dir = makeTempDir("workers");
const NO_SCHEDULES = { catalogue: null, trends: null, artist_stats: null, royalties: null };
const fileConfig = {
  start_date: "2026-01-01",
  requests_per_second: RATE,
  max_concurrency: 6,
  worker_concurrency: 4,
  job_lock_ms: 2_000,
  job_backoff_ms: 200,
  shutdown_grace_ms: 1_500,
  max_retries: 2,
  redis_prefix: prefix,
  schedules: NO_SCHEDULES,
};
let sandbox: Sandbox;
let warehouse: TestWarehouse;
let queue: Queue;
const workers: WorkerProcess[] = [];

function env(extra: Record<string, string> = {}): Record<string, string> {
  return {
    MUSIC_API_URL: sandbox.url,
    MUSIC_API_KEY: sandbox.apiKey,
    DATABASE_URL: warehouse.url,
    REDIS_URL,
    ETL_CONFIG: join(dir.path, "etl.config.json"),
    LOG_LEVEL: "info",
    ...extra,
  };
}

async function worker(extra: Record<string, string> = {}): Promise<WorkerProcess> {
  const started = await spawnWorker({ cwd: dir.path, env: env(extra) });
  workers.push(started);
  return started;
}

function backfill(from: string, to: string, only: string) {
  return runCli(["backfill", "--from", from, "--to", to, "--only", only, "--wait"], {
    cwd: dir.path,
    env: env(),
  });
}

async function stop(processes: readonly WorkerProcess[], signal: NodeJS.Signals = "SIGTERM") {
  for (const p of processes) p.child.kill(signal);
  return Promise.all(processes.map((p) => p.exited));
}

async function until(condition: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

beforeAll(async () => {
  sandbox = await startSandbox({ apiKey: "workers-secret-key-1", today: "2026-01-31" });
  warehouse = await createTestWarehouse("workers");
  dir.write("etl.config.json", fileConfig);
  queue = createEtlQueue(REDIS_URL, etlConfigSchema.parse(fileConfig));
}, 60_000);

afterAll(async () => {
  for (const w of workers)
    if (w.child.exitCode === null && w.child.signalCode === null) w.child.kill("SIGKILL");
  await Promise.all(workers.map((w) => w.exited));
  await queue.close();
  await sandbox.close();
  await warehouse.drop();
  await deleteKeysWithPrefix(prefix);
  dir.remove();
});

describe("worker processes", () => {
  it(`three workers backfill under one budget of ${RATE} req/s, and the warehouse equals the sandbox`, async () => {
    sandbox.setKnobs({ requestsPerSecond: RATE });
    const three = await Promise.all([worker(), worker(), worker()]);
    const started = Date.now();
    const result = await backfill("2026-01-03", "2026-01-06", "trends");
    const seconds = (Date.now() - started) / 1000;
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toMatch(/\d+\/\d+ partitions/);

    const stats = sandbox.stats();
    expect(stats.rateLimited).toBe(0);
    expect(stats.maxPerSecond).toBeLessThanOrEqual(RATE);
    expect(
      await trendItemDifferences(warehouse, sandbox, daysBetween("2026-01-03", "2026-01-06")),
    ).toEqual([]);
    const perSecond = Object.keys(stats.perSecond).map(Number).sort();
    const full = perSecond.slice(1, -1).map((s) => stats.perSecond[s] ?? 0);
    console.log(
      `three workers: ${stats.requests} requests in ${seconds.toFixed(1)} s, ${(full.reduce((a, b) => a + b, 0) / full.length).toFixed(1)} req/s over full seconds, max ${stats.maxPerSecond} in one second`,
    );

    const health = await fetch(`${three[0]?.operatorUrl}/healthz`);
    expect(health.status).toBe(200);
    const metrics = await (await fetch(`${three[0]?.operatorUrl}/metrics`)).text();
    for (const name of [
      "etl_http_requests_total",
      "etl_http_rate_limited_total",
      "etl_http_retries_total",
      "etl_rows_written_total",
      "etl_partition_duration_seconds",
      "etl_failed_partitions_total",
      "etl_queue_jobs",
      "etl_stream_freshness_days",
    ]) {
      expect(metrics).toContain(name);
    }
    expect(metrics).not.toContain(sandbox.apiKey);
    // The dashboard shows jobs with their data and errors: none of it carries the key.
    const dashboard = await fetch(
      `${three[0]?.operatorUrl}/queues/api/queues?activeQueue=etl&status=completed&page=1`,
    );
    expect(dashboard.status).toBe(200);
    const shown = await dashboard.text();
    expect(shown).toContain("partition");
    expect(shown).not.toContain(sandbox.apiKey);
    expect(await stop(three)).toEqual([0, 0, 0]);
  }, 120_000);

  it("finishes a backfill exactly when one of its workers is killed mid-way", async () => {
    sandbox.setKnobs({ requestsPerSecond: null, latencyMs: 150 });
    const three = await Promise.all([worker(), worker(), worker()]);
    const days = daysBetween("2026-01-07", "2026-01-10");
    const running = backfill(days[0] ?? "", days.at(-1) ?? "", "trend_items");
    await until(async () => {
      const [row] = await warehouse.query<{ n: number }>(
        "select count(*)::int as n from etl.sync_runs where stream = 'trend_items' and status = 'succeeded' and partition >= '2026-01-07'",
      );
      return (row?.n ?? 0) >= 8;
    });
    three[0]?.child.kill("SIGKILL");
    const result = await running;
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(await trendItemDifferences(warehouse, sandbox, days)).toEqual([]);
    const states = await warehouse.query<{ n: number }>(
      `select count(*)::int as n from etl.stream_state
          where stream = 'trend_items' and partition >= '2026-01-07' and partition < '2026-01-11' and last_status = 'succeeded'`,
    );
    expect(states[0]?.n).toBe(days.length * 10);
    expect(await stop(three.slice(1))).toEqual([0, 0]);
    sandbox.setKnobs({ latencyMs: 0 });
  }, 120_000);

  it("ends a backfill whose list may be incomplete with exit 4, counted in the metrics", async () => {
    // A next-page link to another origin is never followed: the payouts may be incomplete.
    sandbox.setKnobs({
      requestsPerSecond: null,
      shapes: { royaltiesPaging: "next-link", foreignNextLink: "http://127.0.0.1:9" },
    });
    const one = await worker();
    try {
      const result = await backfill("2026-01-03", "2026-01-03", "payouts");
      expect(result.code, result.stdout + result.stderr).toBe(4);
      expect(result.stdout).toContain(
        "0 records were quarantined and 1 partitions may be incomplete",
      );
      const metrics = await (await fetch(`${one.operatorUrl}/metrics`)).text();
      expect(metrics).toMatch(
        /^etl_partition_warnings_total\{stream="payouts",kind="truncated"\} 1$/m,
      );
      expect(metrics).toMatch(/^etl_rejected_records_total\{stream="payouts"\} 0$/m);
    } finally {
      sandbox.setKnobs({ shapes: { royaltiesPaging: "none", foreignNextLink: null } });
    }
    expect(await stop([one])).toEqual([0]);
  }, 120_000);

  it("on SIGTERM stops taking jobs, hands active ones back within the grace period and exits 0", async () => {
    sandbox.setKnobs({ latencyMs: 4_000 });
    const one = await worker();
    const running = backfill("2026-01-11", "2026-01-11", "trend_items");
    await until(async () => (await queue.getActiveCount()) >= 2);
    const t0 = Date.now();
    one.child.kill("SIGTERM");
    expect(await one.exited).toBe(0);
    expect(Date.now() - t0).toBeLessThan(1_500 + 3_000);
    await until(async () => (await queue.getActiveCount()) === 0, 5_000);
    expect((await keysWithPrefix(prefix)).filter((k) => k.endsWith(":lock"))).toEqual([]);

    sandbox.setKnobs({ latencyMs: 0 });
    const next = await worker();
    const result = await running;
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(await trendItemDifferences(warehouse, sandbox, ["2026-01-11"])).toEqual([]);
    expect(await stop([next])).toEqual([0]);
  }, 120_000);

  it("reconciles job schedulers: one per family however many workers start, updated when the config changes", async () => {
    const scheduled = {
      ...fileConfig,
      schedules: {
        trends: { pattern: "5 * * * *", tz: "UTC" },
        royalties: { pattern: "35 * * * *", tz: "Europe/Paris" },
      },
    };
    writeFileSync(join(dir.path, "etl.config.json"), JSON.stringify(scheduled));
    expect(await stop(await Promise.all([worker(), worker()]))).toEqual([0, 0]);
    const first = await queue.getJobSchedulers();
    expect(first.map((s) => `${s.key} ${s.pattern} ${s.tz}`).sort()).toEqual([
      "family-artist_stats 45 3 * * * UTC",
      "family-catalogue 15 3 * * * UTC",
      "family-royalties 35 * * * * Europe/Paris",
      "family-trends 5 * * * * UTC",
    ]);

    const changed = {
      ...scheduled,
      schedules: { trends: { pattern: "*/10 * * * *" }, royalties: null },
    };
    writeFileSync(join(dir.path, "etl.config.json"), JSON.stringify(changed));
    expect(await stop([await worker()])).toEqual([0]);
    const second = await queue.getJobSchedulers();
    expect(second.map((s) => `${s.key} ${s.pattern}`).sort()).toEqual([
      "family-artist_stats 45 3 * * *",
      "family-catalogue 15 3 * * *",
      "family-trends */10 * * * *",
    ]);
    writeFileSync(join(dir.path, "etl.config.json"), JSON.stringify(fileConfig));
  }, 120_000);
});
