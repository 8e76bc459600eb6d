import { writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import type { Queue } from "bullmq";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEtlQueue } from "../../src/jobs/etl-queue.js";
import { etlConfigSchema } from "../../src/config/etl-config-schema.js";
import { type Sandbox, startSandbox } from "../../sandbox/index.js";
import { daysBetween } from "../../src/time/calendar.js";
import { etlEnv, runCli } from "../helpers/cli.js";
import { deleteKeysWithPrefix, keysWithPrefix, REDIS_URL, uniquePrefix } from "../helpers/redis.js";
import { trendItemDifferences } from "../helpers/reconcile-trends.js";
import { makeTempDir } from "../helpers/temp-dir.js";
import { createTestWarehouse, type TestWarehouse } from "../helpers/warehouse.js";
import {
  endProcesses,
  readiness,
  spawnWorker,
  type WorkerProcess,
} from "../helpers/worker-process.js";
import { until } from "../helpers/until.js";

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
  credential_recheck_ms: 1_000,
  max_retries: 2,
  redis_prefix: prefix,
  schedules: NO_SCHEDULES,
};
let sandbox: Sandbox;
let warehouse: TestWarehouse;
let queue: Queue;
const workers: WorkerProcess[] = [];

function env(extra: Record<string, string> = {}): Record<string, string> {
  return etlEnv(sandbox, warehouse.url, join(dir.path, "etl.config.json"), extra);
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

/** A log line's pino level (40 warn, 50 error); 0 for a line that is not one. */
function logLevel(line: string): number {
  try {
    const { level } = JSON.parse(line) as { level?: unknown };
    return typeof level === "number" ? level : 0;
  } catch {
    return 0;
  }
}

/** The re-checks of a refused credential so far, as /readyz says. */
function checksSoFar(health: Awaited<ReturnType<typeof readiness>>): number {
  return Number(/(\d+) checks so far/.exec(health.body.checks.upstream_credential ?? "")?.[1] ?? 0);
}

/** How etl.attempts names a worker process: its host and pid. */
function runnerOf(process: WorkerProcess | undefined): string {
  return `${hostname()} pid ${process?.child.pid}`;
}

/** Attempts in a state, of one worker (null: of any). */
async function attemptsOf(runner: string | null, status: string) {
  return warehouse.query<{ attempt_id: string }>(
    "select attempt_id::text from etl.attempts where status = $2 and ($1::text is null or runner = $1) order by attempt_id",
    [runner, status],
  );
}

beforeAll(async () => {
  sandbox = await startSandbox({ apiKey: "workers-secret-key-1", today: "2026-01-31" });
  warehouse = await createTestWarehouse("workers");
  dir.write("etl.config.json", fileConfig);
  queue = createEtlQueue(REDIS_URL, etlConfigSchema.parse(fileConfig));
});

afterAll(async () => {
  await endProcesses(workers);
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
    // A start with Postgres, Redis and the upstream up says nothing at warn or above, up to the
    // gates' first probes (an alert on the log would fire on every deploy).
    for (const started of three) {
      await until(() => Promise.resolve(started.logs.some((line) => /taking jobs/.test(line))));
      expect(started.logs.filter((line) => logLevel(line) >= 40)).toEqual([]);
    }
    const result = await backfill("2026-01-03", "2026-01-06", "trends");
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toMatch(/\d+\/\d+ partitions/);
    // Postgres and Redis answered all along: no worker said it lost them, nor found them again.
    for (const started of three) {
      expect(started.logs.filter((line) => /does not answer|answers again/.test(line))).toEqual([]);
    }

    const stats = sandbox.stats();
    // Three budgets that did not share one would send three times the rate. Shared, one more than
    // R in one of the sandbox's seconds needs a send delivered later than the next (a busy
    // machine may), so now and then, never often.
    expect(stats.maxPerSecond).toBeLessThanOrEqual(RATE + 2);
    expect(stats.rateLimited / stats.requests).toBeLessThanOrEqual(0.02);
    expect(
      await trendItemDifferences(warehouse, sandbox, daysBetween("2026-01-03", "2026-01-06")),
    ).toEqual([]);

    const health = await fetch(`${three[0]?.operatorUrl}/readyz`);
    expect(health.status).toBe(200);
    const metrics = await (await fetch(`${three[0]?.operatorUrl}/metrics`)).text();
    for (const name of [
      "etl_http_requests_total",
      "etl_http_retries_total",
      "etl_rows_written_total",
      "etl_partition_duration_seconds",
      "etl_queue_jobs",
      "etl_stream_last_success_timestamp_seconds",
      "etl_upstream_credential_refused",
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
  });

  it("finishes a backfill exactly when one of its workers is killed mid-way", async () => {
    sandbox.setKnobs({ requestsPerSecond: null, latencyMs: 150 });
    const three = await Promise.all([worker(), worker(), worker()]);
    const days = daysBetween("2026-01-07", "2026-01-10");
    const running = backfill(days[0] ?? "", days.at(-1) ?? "", "trend_items");
    const killed = runnerOf(three[0]);
    await until(async () => {
      const [row] = await warehouse.query<{ done: number; mine: number }>(
        `select count(*) filter (where status = 'succeeded')::int as done,
                count(*) filter (where status = 'running' and runner = $1)::int as mine
           from etl.attempts where stream = 'trend_items' and partition >= '2026-01-07'`,
        [killed],
      );
      return (row?.done ?? 0) >= 8 && (row?.mine ?? 0) >= 2;
    });
    three[0]?.child.kill("SIGKILL");
    await three[0]?.exited;
    const left = await attemptsOf(killed, "running");
    expect(left.length).toBeGreaterThan(0);
    const result = await running;
    expect(result.code, result.stdout + result.stderr).toBe(0);
    // Every attempt the dead worker left running was closed by the worker that took its partition.
    const closed = await warehouse.query<{ attempt_id: string; status: string; closed_by: string }>(
      "select attempt_id::text, status, closed_by from etl.attempts where attempt_id = any($1::bigint[]) order by attempt_id",
      [left.map((attempt) => attempt.attempt_id)],
    );
    const survivors = three.slice(1).map(runnerOf);
    expect(closed.map((c) => c.status)).toEqual(left.map(() => "abandoned"));
    // The survivors found the dead worker's jobs stalled, and count them: every attempt it left
    // running was one of its active jobs.
    let stalled = 0;
    for (const survivor of three.slice(1)) {
      const text = await (await fetch(`${survivor.operatorUrl}/metrics`)).text();
      stalled += Number(/^etl_jobs_stalled_total (\d+)$/m.exec(text)?.[1] ?? 0);
    }
    expect(stalled).toBeGreaterThanOrEqual(left.length);
    for (const c of closed) expect(survivors).toContain(c.closed_by);
    expect(await attemptsOf(null, "running")).toEqual([]);
    expect(await trendItemDifferences(warehouse, sandbox, days)).toEqual([]);
    const states = await warehouse.query<{ n: number }>(
      `select count(*)::int as n from etl.stream_state
          where stream = 'trend_items' and partition >= '2026-01-07' and partition < '2026-01-11' and last_status = 'succeeded'`,
    );
    expect(states[0]?.n).toBe(days.length * 10);
    expect(await stop(three.slice(1))).toEqual([0, 0]);
    sandbox.setKnobs({ latencyMs: 0 });
  });

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
  });

  it("on SIGTERM stops taking jobs, hands active ones back within the grace period and exits 0", async () => {
    sandbox.setKnobs({ latencyMs: 4_000 });
    const one = await worker();
    const running = backfill("2026-01-11", "2026-01-11", "trend_items");
    await until(async () => (await queue.getActiveCount()) >= 2);
    one.child.kill("SIGTERM");
    expect(await one.exited).toBe(0);
    // Its requests take 4 s and the grace 1.5 s: the active attempts were cut short, and end as
    // interrupted, not failed (nor left running); the partitions' state is untouched.
    const attempts = await warehouse.query<{ status: string; n: number }>(
      `select status, count(*)::int as n from etl.attempts
        where stream = 'trend_items' and partition like '2026-01-11|%' group by status`,
    );
    expect(attempts.map((a) => a.status)).toEqual(["interrupted"]);
    expect(attempts[0]?.n).toBeGreaterThanOrEqual(2);
    const states = await warehouse.query(
      "select 1 from etl.stream_state where stream = 'trend_items' and partition like '2026-01-11|%'",
    );
    expect(states).toEqual([]);
    await until(async () => (await queue.getActiveCount()) === 0);
    expect((await keysWithPrefix(prefix)).filter((k) => k.endsWith(":lock"))).toEqual([]);

    sandbox.setKnobs({ latencyMs: 0 });
    const next = await worker();
    const result = await running;
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(await trendItemDifferences(warehouse, sandbox, ["2026-01-11"])).toEqual([]);
    expect(await stop([next])).toEqual([0]);
  });

  it("is not ready while the key it starts with is refused, and is once it is accepted", async () => {
    sandbox.setKnobs({ requestsPerSecond: null, latencyMs: 0, refuseCredential: true });
    const refusedBefore = sandbox.stats().unauthorized;
    const attempts = () =>
      warehouse.query("select attempt_id from etl.attempts order by attempt_id");
    const attemptsBefore = await attempts();
    const one = await worker();
    const credential = async () => (await readiness(one)).body.checks.upstream_credential ?? "";
    // No job is queued: only the check the worker makes as it starts can find the refusal.
    expect(await queue.getJobCounts("waiting", "active", "delayed")).toEqual({
      waiting: 0,
      active: 0,
      delayed: 0,
    });
    await until(async () =>
      /refused the credential.*, [2-9]\d* checks so far/.test(await credential()),
    );
    const paused = await readiness(one);
    expect(paused.status).toBe(503);
    expect(paused.body.checks.postgres).toBe("ok");
    expect(paused.body.checks.redis).toBe("ok");
    expect((await fetch(`${one.operatorUrl}/livez`)).status).toBe(200);
    const metrics = await (await fetch(`${one.operatorUrl}/metrics`)).text();
    expect(metrics).toMatch(/^etl_upstream_credential_refused 1$/m);
    // The start's check, then one request per re-check; the last may be counted before its
    // request arrives, or the next arrive before it is counted.
    const checks = checksSoFar(paused);
    const refused = sandbox.stats().unauthorized - refusedBefore;
    expect(refused).toBeGreaterThanOrEqual(checks);
    expect(refused).toBeLessThanOrEqual(checks + 2);

    sandbox.setKnobs({ refuseCredential: false });
    await until(async () => (await readiness(one)).status === 200);
    expect((await readiness(one)).body.checks.upstream_credential).toBe("ok");
    expect(await attempts()).toEqual(attemptsBefore);
    expect(await stop([one])).toEqual([0]);
  });

  it("is not ready while the upstream does not answer its first check, and is once it does", async () => {
    sandbox.setKnobs({ requestsPerSecond: null, latencyMs: 0, down: true });
    const one = await worker();
    // No answer proves nothing: the credential stays unchecked, and is checked again.
    await until(async () =>
      /^the credential could not be checked: .*, [1-9]\d* checks so far/.test(
        (await readiness(one)).body.checks.upstream_credential ?? "",
      ),
    );
    expect((await readiness(one)).status).toBe(503);
    const metrics = await (await fetch(`${one.operatorUrl}/metrics`)).text();
    expect(metrics).toMatch(/^etl_upstream_credential_refused 0$/m);

    sandbox.setKnobs({ down: false });
    await until(async () => (await readiness(one)).status === 200);
    expect(await stop([one])).toEqual([0]);
  });

  it("pauses on a refused credential, checks it again, and resumes by itself once it is accepted", async () => {
    sandbox.setKnobs({ requestsPerSecond: null, latencyMs: 0 });
    // What the sandbox received of the credential check (the territories look-up) and of the
    // backfill's jobs (trend_totals), refused or not.
    const received = (operation: string) => sandbox.stats().byOperation[operation] ?? 0;
    const checkRequests = () => received("catalogue.getTerritories");
    const jobRequests = () => received("trends.total");
    const one = await worker();
    // Accepted as it starts, then refused: the refusal is met by the jobs.
    await until(async () => (await readiness(one)).status === 200);
    sandbox.setKnobs({ refuseCredential: true });
    const refusedBefore = sandbox.stats().unauthorized;
    const jobsBefore = jobRequests();
    const running = backfill("2026-01-12", "2026-01-12", "trend_totals");
    const health = () => readiness(one);
    await until(async () => (await health()).body.checks.upstream_credential !== "ok");
    const closedChecks = checksSoFar(await health());
    const closedRefused = sandbox.stats().unauthorized;
    const checksAtClose = checkRequests();
    // The jobs sending when the first refusal came were refused, one request each at most (and a
    // check may have followed): the others stop before sending.
    expect(closedRefused - refusedBefore).toBeGreaterThanOrEqual(1);
    expect(closedRefused - refusedBefore).toBeLessThanOrEqual(fileConfig.worker_concurrency + 1);
    // Three checks again, one request each, and no job spent or failed meanwhile.
    await until(async () => checksSoFar(await health()) >= closedChecks + 3);
    const paused = await health();
    const checkedSinceClose = checkRequests() - checksAtClose;
    expect(paused.status).toBe(503);
    expect(paused.body.checks.upstream_credential).toContain("refused the credential");
    const pausedMetrics = await (await fetch(`${one.operatorUrl}/metrics`)).text();
    expect(pausedMetrics).toMatch(/^etl_upstream_credential_refused 1$/m);
    // Not ready, yet alive: a liveness probe must not restart a worker that waits for a key.
    expect((await fetch(`${one.operatorUrl}/livez`)).status).toBe(200);
    // At either end, a check may be counted before its request arrives or the other way round.
    const checks = checksSoFar(paused) - closedChecks;
    expect(checkedSinceClose).toBeGreaterThanOrEqual(checks - 2);
    expect(checkedSinceClose).toBeLessThanOrEqual(checks + 2);
    // Every job request was refused, one per job at most: those already sending when the first
    // refusal came, some of which a busy machine delivers after the gate has closed.
    expect(jobRequests() - jobsBefore).toBeLessThanOrEqual(fileConfig.worker_concurrency);
    const jobs = await queue.getJobCounts("failed", "waiting", "delayed");
    expect(jobs.failed).toBe(0);
    expect((jobs.waiting ?? 0) + (jobs.delayed ?? 0)).toBeGreaterThan(0);

    sandbox.setKnobs({ refuseCredential: false });
    const result = await running;
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect((await health()).status).toBe(200);
    const attempts = await warehouse.query<{ status: string; n: number }>(
      `select status, count(*)::int as n from etl.attempts
        where stream = 'trend_totals' and partition like '2026-01-12|%' group by status order by 1`,
    );
    expect(attempts.map((a) => a.status)).toEqual(["interrupted", "succeeded"]);
    expect(attempts[1]?.n).toBe(5);
    const metrics = await (await fetch(`${one.operatorUrl}/metrics`)).text();
    expect(metrics).toMatch(/^etl_upstream_credential_refused 0$/m);
    expect(metrics).toMatch(
      /^etl_partition_duration_seconds_count\{stream="trend_totals",status="failed"\} 0$/m,
    );
    expect(metrics).toMatch(
      /^etl_partition_duration_seconds_count\{stream="trend_totals",status="interrupted"\} [1-9]/m,
    );
    expect(await stop([one])).toEqual([0]);
  });

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
    const reconciled = await worker();
    // Each stream exports its family's schedule interval, from the pattern; none when it is off.
    const metrics = await (await fetch(`${reconciled.operatorUrl}/metrics`)).text();
    const intervals = metrics.split("\n").filter((line) => line.startsWith("etl_stream_schedule"));
    expect(intervals).toContain(
      'etl_stream_schedule_interval_seconds{stream="trend_items",family="trends"} 600',
    );
    expect(intervals).toContain(
      'etl_stream_schedule_interval_seconds{stream="products",family="catalogue"} 86400',
    );
    expect(intervals.filter((line) => line.includes('family="royalties"'))).toEqual([]);
    expect(await stop([reconciled])).toEqual([0]);
    const second = await queue.getJobSchedulers();
    expect(second.map((s) => `${s.key} ${s.pattern}`).sort()).toEqual([
      "family-artist_stats 45 3 * * *",
      "family-catalogue 15 3 * * *",
      "family-trends */10 * * * *",
    ]);
    writeFileSync(join(dir.path, "etl.config.json"), JSON.stringify(fileConfig));
  });
});
