import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { enqueueRun } from "../../src/jobs/enqueue-run.js";
import { etlEnv } from "../helpers/cli.js";
import { fingerprints } from "./table-fingerprints.js";
import {
  createDatabaseOn,
  type PrivatePostgres,
  privatePostgres,
} from "../helpers/private-postgres.js";
import { privateRedis } from "../helpers/private-redis.js";
import { startQueueHarness } from "../helpers/queue-harness.js";
import { type SyncHarness, startSyncHarness } from "../helpers/sync-harness.js";
import { dropDatabase, PG_HOST_URL, withDatabaseClient } from "../helpers/warehouse.js";
import { makeTempDir, type TempDir } from "../helpers/temp-dir.js";
import {
  operatorUrlOf,
  spawnEtl,
  spawnWorker,
  type WorkerProcess,
} from "../helpers/worker-process.js";
import pg from "pg";
import { HANG_MS } from "../helpers/hang-limit.js";

// A worker whose Postgres goes away for longer than the jobs' whole retry budget takes no job
// meanwhile and spends no attempt: once Postgres is back it finishes the backfill exactly, as a
// healthy run does, and leaves no attempt `running`. And a worker started while Redis is away
// answers /livez, is not ready, and comes up by itself once Redis does.

const TODAY = "2026-01-31";
const RANGE = { from: "2026-01-03", to: "2026-01-06" };
const STREAMS = ["trend_totals", "trend_items", "trend_chart_points"];
/** Two attempts 200 ms apart: an outage of seconds outlasts the budget many times. */
const SHORT_BUDGET = { job_attempts: 2, job_backoff_ms: 200 };

function workerConfig(harness: SyncHarness, dir: TempDir): string {
  return dir.write("etl.config.json", {
    ...harness.config,
    ...SHORT_BUDGET,
    schedules: { catalogue: null, trends: null, artist_stats: null, royalties: null },
    shutdown_grace_ms: 1_000,
  });
}

function workerEnv(harness: SyncHarness, config: string, databaseUrl: string, redisUrl: string) {
  return etlEnv(harness.upstream.sandbox, databaseUrl, config, { REDIS_URL: redisUrl });
}

async function readyz(operatorUrl: string): Promise<{ status: number; body: string }> {
  const response = await fetch(`${operatorUrl}/readyz`);
  return { status: response.status, body: await response.text() };
}

async function stopWorker(worker: WorkerProcess | undefined): Promise<void> {
  if (!worker || worker.child.exitCode !== null || worker.child.signalCode !== null) return;
  worker.child.kill("SIGTERM");
  await worker.exited;
}

describe("Postgres away for longer than the retry budget, mid-backfill", () => {
  let harness: SyncHarness;
  let server: PrivatePostgres;
  let dir: TempDir;
  let worker: WorkerProcess | undefined;

  beforeAll(async () => {
    harness = await startSyncHarness("pg_outage", { today: TODAY, etl: SHORT_BUDGET });
    server = await privatePostgres();
    server.start();
    dir = makeTempDir("pg-outage");
  });
  afterAll(async () => {
    await stopWorker(worker);
    await harness?.close();
    server?.remove();
    dir?.remove();
  });

  it("takes no job, spends no attempt, and finishes exactly once Postgres is back", async () => {
    // The reference: the same range synced while everything answers.
    await harness.sync({ ...RANGE, only: STREAMS });
    const reference = await fingerprints(harness.warehouse);
    harness.upstream.sandbox.setKnobs({ latencyMs: 150 });

    const databaseUrl = await createDatabaseOn(server.url, "outage");
    const config = workerConfig(harness, dir);
    worker = await spawnWorker({
      cwd: dir.path,
      env: workerEnv(harness, config, databaseUrl, harness.upstream.redisUrl),
    });
    const queues = startQueueHarness(harness);
    const warehouse = new pg.Pool({ connectionString: databaseUrl, max: 1 });
    warehouse.on("error", () => undefined);
    const count = async (sql: string) =>
      Number((await warehouse.query<{ n: number }>(sql)).rows[0]?.n);
    try {
      const { runId } = await enqueueRun(queues.queue, {
        kind: "backfill",
        streams: STREAMS,
        range: RANGE,
      });
      await vi.waitFor(
        async () =>
          expect(
            await count("select count(*)::int as n from etl.attempts where status = 'succeeded'"),
          ).toBeGreaterThan(5),
        { timeout: HANG_MS, interval: 100 },
      );

      server.stop();
      const operator = worker.operatorUrl;
      await vi.waitFor(
        async () => {
          const { status, body } = await readyz(operator);
          expect(status).toBe(503);
          expect(body).toMatch(/postgres at 127\.0\.0\.1:\d+ unreachable since/);
        },
        { timeout: HANG_MS, interval: 200 },
      );
      // Closed: the jobs cut short are handed back and no other is taken, so no request goes
      // out however long the outage lasts (many times the jobs' retry budget).
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      const requestsThen = harness.upstream.sandbox.stats().requests;
      await new Promise((resolve) => setTimeout(resolve, 4_000));
      expect(harness.upstream.sandbox.stats().requests).toBe(requestsThen);

      server.start();
      // Asked for its readiness (as an orchestrator does), it looks at once: not at the next of
      // its rechecks, which back off while Postgres is away (the next test has a worker come up
      // by its rechecks alone).
      await vi.waitFor(async () => expect((await readyz(operator)).status).toBe(200), {
        timeout: HANG_MS,
        interval: 200,
      });
      const progress = await queues.waitForRun(runId);
      expect({ planned: progress.planned > 0, failed: progress.failed }).toEqual({
        planned: true,
        failed: 0,
      });
      const jobs = await queues.queue.getJobs(["completed", "failed"]);
      const partitionJobs = jobs.filter((job) => job.name === "partition");
      expect(partitionJobs.length).toBe(progress.planned);
      // No attempt spent on the outage: each partition job completed at its first attempt.
      expect(partitionJobs.filter((job) => job.attemptsMade > 1 || job.failedReason)).toEqual([]);
      expect(
        await count("select count(*)::int as n from etl.attempts where status = 'running'"),
      ).toBe(0);
      expect(
        await count(
          "select count(*)::int as n from etl.stream_state where last_status <> 'succeeded'",
        ),
      ).toBe(0);
      const outcome = await fingerprints({
        query: async <T>(text: string, values?: unknown[]) =>
          (await warehouse.query(text, values)).rows as T[],
      });
      expect([...outcome].filter(([table]) => table.startsWith("sales."))).toEqual(
        [...reference].filter(([table]) => table.startsWith("sales.")),
      );
    } finally {
      await warehouse.end();
      await queues.close();
    }
  });
});

describe("a worker started while Redis is away", () => {
  it("is alive, not ready, names Redis, and takes work once Redis answers", async () => {
    const redis = await privateRedis();
    const harness = await startSyncHarness("redis_late", { today: TODAY });
    const dir = makeTempDir("redis-late");
    const config = workerConfig(harness, dir);
    // A database not migrated yet: Postgres answers, and the worker migrates it once it starts.
    const name = `${new URL(harness.warehouse.url).pathname.slice(1)}_new`;
    await withDatabaseClient((c) => c.query(`create database ${pg.escapeIdentifier(name)}`));
    const database = `${PG_HOST_URL}/${name}`;
    const worker = spawnEtl(["worker"], {
      cwd: dir.path,
      env: workerEnv(harness, config, database, redis.url),
    });
    try {
      const operator = await operatorUrlOf(worker);
      expect((await fetch(`${operator}/livez`)).status).toBe(200);
      const notReady = await readyz(operator);
      expect(notReady.status).toBe(503);
      expect(notReady.body).toContain(`redis at 127.0.0.1:${redis.port}`);
      expect(worker.logs.some((l) => l.includes("worker started"))).toBe(false);

      await redis.start();
      await vi.waitFor(
        () => expect(worker.logs.some((l) => l.includes("worker started"))).toBe(true),
        {
          timeout: HANG_MS,
          interval: 200,
        },
      );
      await vi.waitFor(async () => expect((await readyz(operator)).status).toBe(200), {
        timeout: HANG_MS,
        interval: 200,
      });
    } finally {
      worker.child.kill("SIGTERM");
      const exited = await worker.exited;
      // Cleaned up before the exit is judged: a failed test leaves no Redis or database behind.
      await dropDatabase(new URL(database).pathname.slice(1));
      await redis.kill();
      await harness.close();
      dir.remove();
      expect(exited).toBe(0);
    }
  });
});
