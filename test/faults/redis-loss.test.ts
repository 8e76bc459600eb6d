// Redis losing its data (killed and restarted empty, no persistence) while the workers run: the
// schedules come back without a worker restart, and a run the queue lost is listed by `etl status`
// and queued again by `etl requeue`. The Redis here is the test's own (test/helpers/private-redis.ts):
// the machine's is shared and is never restarted.
import { join } from "node:path";
import type { Queue } from "bullmq";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { etlConfigSchema } from "../../src/config/etl-config-schema.js";
import { createEtlQueue } from "../../src/jobs/etl-queue.js";
import { RUN_JOB, type RunJobData } from "../../src/jobs/job-types.js";
import { type Sandbox, startSandbox } from "../../sandbox/index.js";
import { etlEnv, runCli } from "../helpers/cli.js";
import { type PrivateRedis, privateRedis } from "../helpers/private-redis.js";
import { uniquePrefix } from "../helpers/redis.js";
import { makeTempDir } from "../helpers/temp-dir.js";
import { createTestWarehouse, type TestWarehouse } from "../helpers/warehouse.js";
import { endProcesses, spawnWorker, type WorkerProcess } from "../helpers/worker-process.js";
import { HANG_MS } from "../helpers/hang-limit.js";

const dir = makeTempDir("redis-loss");
const base = {
  start_date: "2026-01-01",
  requests_per_second: 1000,
  max_concurrency: 8,
  job_lock_ms: 2_000,
  job_backoff_ms: 200,
  shutdown_grace_ms: 1_000,
};
/** Two families scheduled, at times that never come during the test. */
const scheduled = {
  ...base,
  redis_prefix: uniquePrefix("redis-loss-schedules"),
  schedules: {
    catalogue: { pattern: "15 3 1 1 *", tz: "UTC" },
    trends: { pattern: "5 4 1 1 *", tz: "Europe/Berlin" },
    artist_stats: null,
    royalties: null,
  },
};
const unscheduled = {
  ...base,
  redis_prefix: uniquePrefix("redis-loss-runs"),
  schedules: { catalogue: null, trends: null, artist_stats: null, royalties: null },
};
let sandbox: Sandbox;
let warehouse: TestWarehouse;
let redis: PrivateRedis;
const queues: Queue[] = [];
const workers: WorkerProcess[] = [];

function env(configFile: string): Record<string, string> {
  return etlEnv(sandbox, warehouse.url, join(dir.path, configFile), { REDIS_URL: redis.url });
}

function etl(configFile: string, ...args: string[]) {
  return runCli(args, { cwd: dir.path, env: env(configFile) });
}

async function worker(configFile: string): Promise<WorkerProcess> {
  const started = await spawnWorker({ cwd: dir.path, env: env(configFile) });
  workers.push(started);
  return started;
}

async function stop(process: WorkerProcess): Promise<void> {
  process.child.kill("SIGTERM");
  expect(await process.exited).toBe(0);
}

function queueOf(config: object): Queue {
  const queue = createEtlQueue(redis.url, etlConfigSchema.parse(config));
  queues.push(queue);
  return queue;
}

/** Redis killed like a crash, and started again with nothing: every key is gone. */
async function loseRedis(): Promise<void> {
  await redis.kill();
  await redis.start();
}

interface RunRow {
  run_id: string;
  kind: string;
  streams: string[];
  range_from: string | null;
  range_to: string | null;
  status: string;
  queued_by: string | null;
  started_at: Date | null;
  finished_at: Date | null;
  replaced_by: string | null;
}

async function runRow(runId: string): Promise<RunRow | undefined> {
  const [row] = await warehouse.query<RunRow>(
    `select run_id, kind, streams, range_from::text, range_to::text, status, queued_by,
            started_at, finished_at, replaced_by
       from etl.runs where run_id = $1`,
    [runId],
  );
  return row;
}

beforeAll(async () => {
  sandbox = await startSandbox({ apiKey: "redis-loss-secret-key-1", today: "2026-01-31" });
  warehouse = await createTestWarehouse("redis_loss");
  redis = await privateRedis();
  await redis.start();
  dir.write("scheduled.json", scheduled);
  dir.write("unscheduled.json", unscheduled);
});

afterAll(async () => {
  await endProcesses(workers);
  await Promise.all(queues.map((queue) => queue.close()));
  await sandbox?.close();
  await warehouse?.drop();
  // Its keys go with it: nothing of the test is in the machine's Redis.
  await redis?.kill();
  dir.remove();
});

describe("Redis restarted empty under a running worker", () => {
  it("the worker re-creates its job schedulers, with their next runs, and logs it; flushed too", async () => {
    const running = await worker("scheduled.json");
    const queue = queueOf(scheduled);
    const schedulers = async () =>
      (await queue.getJobSchedulers()).map((s) => `${s.key} ${s.pattern} ${s.tz}`).sort();
    const expected = ["family-catalogue 15 3 1 1 * UTC", "family-trends 5 4 1 1 * Europe/Berlin"];
    expect(await schedulers()).toEqual(expected);

    await loseRedis();
    await vi.waitFor(async () => expect(await schedulers()).toEqual(expected), {
      timeout: HANG_MS,
      interval: 100,
    });
    // Each scheduler's next run is queued again (delayed until its time).
    expect(await queue.getJobCountByTypes("delayed")).toBe(2);
    // Logged once both are back, so it may come a moment after they are seen.
    await vi.waitFor(
      () =>
        expect(
          running.logs.filter((line) =>
            line.includes("job schedulers were gone from Redis (redis lost its data): re-created"),
          ),
        ).not.toEqual([]),
      { timeout: HANG_MS, interval: 100 },
    );

    // Flushed with no restart, no reconnection tells the worker: its periodic look finds them gone.
    const client = new Redis(redis.url);
    try {
      await client.flushall();
    } finally {
      client.disconnect();
    }
    await vi.waitFor(async () => expect(await schedulers()).toEqual(expected), {
      timeout: HANG_MS,
      interval: 100,
    });
    expect(await queue.getJobCountByTypes("delayed")).toBe(2);
    await stop(running);
  });
});

describe("a run the queue lost", () => {
  let lostId = "";

  it("a backfill queued without --wait is recorded as queued, by the process that queued it", async () => {
    const queued = await etl(
      "unscheduled.json",
      "backfill",
      "--from",
      "2026-01-03",
      "--to",
      "2026-01-04",
      "--only",
      "trend_totals",
    );
    expect(queued.code, queued.stdout + queued.stderr).toBe(0);
    lostId = /^backfill (run-\S+) queued/m.exec(queued.stdout)?.[1] ?? "";
    expect(lostId).not.toBe("");
    expect(await runRow(lostId)).toMatchObject({
      kind: "backfill",
      streams: ["trend_totals"],
      range_from: "2026-01-03",
      range_to: "2026-01-04",
      status: "queued",
      started_at: null,
      replaced_by: null,
    });
    expect((await runRow(lostId))?.queued_by).toMatch(/ pid \d+$/);
  });

  it("after Redis restarts empty, status lists it as lost with its kind, days and streams, and how to queue it again", async () => {
    await loseRedis();
    const status = await etl("unscheduled.json", "status");
    expect(status.code, status.stdout + status.stderr).toBe(0);
    expect(status.stdout).toMatch(/^lost runs: 1 queued or running when their job vanished/m);
    expect(status.stdout).toMatch(
      new RegExp(
        `^${lostId}\\s+backfill\\s+2026-01-03\\.\\.2026-01-04\\s+\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}\\s+trend_totals$`,
        "m",
      ),
    );
    expect(status.stdout).toContain("`etl requeue <run>` (one) or `etl requeue --lost` (all)");
    expect(await runRow(lostId)).toMatchObject({ status: "lost", replaced_by: null });
    expect((await runRow(lostId))?.finished_at).not.toBeNull();
  });

  it("requeue queues it again, the same; a worker runs it; status lists it no more", async () => {
    const requeued = await etl("unscheduled.json", "requeue", lostId);
    expect(requeued.code, requeued.stdout + requeued.stderr).toBe(0);
    const newId =
      new RegExp(
        `^lost run ${lostId} queued again as (run-\\S+) \\(backfill, 2026-01-03\\.\\.2026-01-04, trend_totals\\)$`,
        "m",
      ).exec(requeued.stdout)?.[1] ?? "";
    expect(newId).not.toBe("");
    expect(await runRow(lostId)).toMatchObject({ status: "lost", replaced_by: newId });
    expect(await runRow(newId)).toMatchObject({
      kind: "backfill",
      streams: ["trend_totals"],
      range_from: "2026-01-03",
      range_to: "2026-01-04",
      status: "queued",
    });

    // Asked again, it queues nothing: the run was replaced.
    const again = await etl("unscheduled.json", "requeue", lostId);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain(`run ${lostId} was queued again already, as ${newId}`);

    const running = await worker("unscheduled.json");
    await vi.waitFor(async () => expect((await runRow(newId))?.status).toBe("succeeded"), {
      timeout: HANG_MS,
      interval: 100,
    });
    const row = await runRow(newId);
    expect(row?.started_at).not.toBeNull();
    expect(row?.finished_at).not.toBeNull();
    const days = await warehouse.query<{ day: string }>(
      "select distinct day::text from sales.trend_totals order by day",
    );
    expect(days.map((row) => row.day)).toEqual(["2026-01-03", "2026-01-04"]);

    const status = await etl("unscheduled.json", "status");
    expect(status.code).toBe(0);
    expect(status.stdout).not.toMatch(/^lost runs/m);
    await stop(running);
  });

  it("a run a job scheduler queued is recorded when a worker starts it", async () => {
    const running = await worker("unscheduled.json");
    const queue = queueOf(unscheduled);
    const data: RunJobData = { kind: "schedule", streams: ["dsps"], range: {} };
    await queue.upsertJobScheduler(
      "test-once",
      { every: 1_000, limit: 1 },
      { name: RUN_JOB, data },
    );
    await vi.waitFor(
      async () => {
        const rows = await warehouse.query<RunRow>(
          "select run_id, kind, streams, status, queued_by from etl.runs where run_id like 'repeat:test-once:%'",
        );
        expect(rows).toMatchObject([
          { kind: "schedule", streams: ["dsps"], status: "succeeded", queued_by: null },
        ]);
      },
      { timeout: HANG_MS, interval: 500 },
    );
    await queue.removeJobScheduler("test-once");
    await stop(running);
  });

  it("requeue refuses what it cannot do: no such run, a run not lost, an id with --lost", async () => {
    const unknown = await etl("unscheduled.json", "requeue", "run-no-such-run");
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/no run run-no-such-run in etl\.runs/);

    const [finished] = await warehouse.query<{ run_id: string }>(
      "select run_id from etl.runs where status = 'succeeded' limit 1",
    );
    const notLost = await etl("unscheduled.json", "requeue", finished?.run_id ?? "");
    expect(notLost.code).toBe(1);
    expect(notLost.stdout).toMatch(/succeeded: requeue queues only lost runs/);

    const both = await etl("unscheduled.json", "requeue", "run-x", "--lost");
    expect(both.code).toBe(2);
    const none = await etl("unscheduled.json", "requeue", "--lost");
    expect(none.code).toBe(0);
    expect(none.stdout).toContain("no lost run: nothing to queue again");
  });
});
