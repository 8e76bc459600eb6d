import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { enqueueRun } from "../../src/jobs/enqueue-run.js";
import { table } from "../../src/cli/output.js";
import { sandboxTracking } from "../../sandbox/demo/sandbox-tracking.js";
import { type KnobsPatch, startSandbox } from "../../sandbox/index.js";
import { etlEnv, runCli } from "../helpers/cli.js";
import { privateRedis } from "../helpers/private-redis.js";
import { startQueueHarness } from "../helpers/queue-harness.js";
import { deleteKeysWithPrefix, uniquePrefix } from "../helpers/redis.js";
import { makeTempDir, type TempDir } from "../helpers/temp-dir.js";
import { spawnWorker, type WorkerProcess } from "../helpers/worker-process.js";
import { dropDatabase, PG_HOST_URL, withDatabaseClient } from "../helpers/warehouse.js";
import { type SyncHarness, startSyncHarness } from "../helpers/sync-harness.js";
import {
  differences,
  fingerprints,
  rowCount,
  type TableFingerprint,
} from "./table-fingerprints.js";

const TODAY = "2026-01-31";
const RANGE = { from: "2026-01-03", to: "2026-01-05" };
const STREAMS = [
  "products",
  "territories",
  "dsps",
  "trend_totals",
  "trend_items",
  "trend_chart_points",
  "payouts",
  "pending_payouts",
  "incomes",
  "invoices",
];
/** Retries that outlast a 20 s outage: the client's own, then the job's with backoff. */
const RESILIENT = {
  max_retries: 3,
  request_timeout_ms: 1_000,
  job_attempts: 8,
  job_backoff_ms: 500,
  job_lock_ms: 5_000,
  worker_concurrency: 4,
  max_concurrency: 6,
  requests_per_second: 100,
};

interface CaseRow {
  readonly name: string;
  readonly requests: number;
  readonly retries: number;
  readonly rowsChecked: number;
  readonly result: string;
}

const results: CaseRow[] = [];
let tracking: Record<string, unknown>;
let reference: Map<string, TableFingerprint>;

interface FaultCase {
  readonly knobs?: KnobsPatch;
  /** Something to break once the run is under way (after `afterRequests` requests). */
  readonly during?: (harness: SyncHarness, workers: Workers) => Promise<void>;
  readonly afterRequests?: number;
  /** Whether the fault must have cost retries (idle connections killed cost none). */
  readonly mustRetry?: boolean;
  /** A Redis of the case's own (one it restarts), instead of the machine's. */
  readonly redisUrl?: string;
  /** Run the worker as its own process (which `during` may signal) instead of in-process. */
  readonly processes?: boolean;
}

/** What a drift case finds in its warehouse before it is dropped. */
interface DriftFindings {
  /** Rows (of tables with a raw column) whose raw lacks the field the drift added. */
  readonly rawWithoutNewField: number;
  /** Values reported untyped in etl.attempts, summed over fields and partitions. */
  readonly untypedReported: number;
  /**
   * Rows whose declared column is null while its raw holds a value (a payout's amount: a
   * discovered column widens instead).
   */
  readonly typedAsNull: number;
}

/** The case's worker processes, and a way to start one more. */
type Workers = WorkerProcess[] & { spawn(): Promise<WorkerProcess> };

/** A backfill through the queue with a worker, the fault applied; returns the stored prints. */
async function backfillWith(label: string, fault: FaultCase) {
  let retries = 0;
  const harness = await startSyncHarness(label, {
    today: TODAY,
    etl: { ...tracking, ...RESILIENT },
    sandbox: { knobs: { slowMs: 3_000, ...fault.knobs } },
    ...(fault.redisUrl ? { redisUrl: fault.redisUrl } : {}),
    http: {
      retryBaseMs: 100,
      retryMaxDelayMs: 1_000,
      onTry: (e) => void (e.tryNumber > 1 && retries++),
    },
  });
  const queues = startQueueHarness(harness);
  const configDir = makeTempDir("faults-worker");
  const workers = Object.assign([] as WorkerProcess[], {
    spawn: () => spawnWorkerFor(harness, configDir, 1_000),
  });
  try {
    if (fault.processes) workers.push(await workers.spawn());
    else queues.startWorker();
    const { runId } = await enqueueRun(queues.queue, {
      kind: "backfill",
      streams: STREAMS,
      range: RANGE,
    });
    if (fault.during) {
      while (harness.upstream.sandbox.stats().requests < (fault.afterRequests ?? 20)) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      await fault.during(harness, workers);
    }
    const progress = await queues.waitForRun(runId);
    const stats = harness.upstream.sandbox.stats();
    // Partition attempts that failed and were retried by the queue.
    const [failedAttempts] = await harness.warehouse.query<{ n: number }>(
      "select count(*)::int as n from etl.attempts where status <> 'succeeded'",
    );
    // Everything the case produced that a person could read: logs and recorded errors.
    const errors = await harness.warehouse.query<{ error: string | null }>(
      "select error from etl.attempts where error is not null",
    );
    const outputs = [
      ...harness.upstream.logs,
      ...workers.flatMap((w) => w.logs),
      ...errors.map((e) => e.error ?? ""),
    ].join("\n");
    expect(outputs).not.toContain(harness.upstream.sandbox.apiKey);
    const attempts = await harness.warehouse.query<{ status: string; n: number }>(
      "select status, count(*)::int as n from etl.attempts group by status",
    );
    return {
      attempts: Object.fromEntries(attempts.map((a) => [a.status, a.n])),
      drift: await driftFindings(harness),
      progress,
      prints: await fingerprints(harness.warehouse),
      requests: stats.requests,
      retries: retries + stats.rateLimited + (failedAttempts?.n ?? 0),
    };
  } finally {
    for (const w of workers)
      if (w.child.exitCode === null && w.child.signalCode === null) w.child.kill("SIGTERM");
    await Promise.all(workers.map((w) => w.exited));
    await queues.close();
    await harness.close();
    configDir.remove();
  }
}

/** `etl worker` as a process on the case's sandbox, database and Redis prefix. */
async function spawnWorkerFor(
  harness: SyncHarness,
  dir: TempDir,
  graceMs: number,
): Promise<WorkerProcess> {
  const config = {
    ...harness.config,
    schedules: { catalogue: null, trends: null, artist_stats: null, royalties: null },
    shutdown_grace_ms: graceMs,
  };
  const file = dir.write("etl.config.json", config);
  return spawnWorker({
    cwd: dir.path,
    env: etlEnv(harness.upstream.sandbox, harness.warehouse.url, file, {
      REDIS_URL: harness.upstream.redisUrl,
    }),
  });
}

async function driftFindings(harness: SyncHarness): Promise<DriftFindings> {
  const tables = await harness.warehouse.query<{ name: string }>(
    `select table_schema || '.' || table_name as name from information_schema.columns
      where column_name = 'raw' and table_schema in ('catalogue', 'sales', 'royalties')`,
  );
  let rawWithoutNewField = 0;
  for (const { name } of tables) {
    const [row] = await harness.warehouse.query<{ n: number }>(
      `select count(*)::int as n from ${name} where not raw ? 'x_unexpected'`,
    );
    rawWithoutNewField += row?.n ?? 0;
  }
  const [untyped] = await harness.warehouse.query<{ n: number }>(
    `select coalesce(sum((u->>'count')::int), 0)::int as n
       from etl.attempts, jsonb_array_elements(untyped_values) u where status = 'succeeded'`,
  );
  const [nulls] = await harness.warehouse.query<{ n: number }>(
    `select count(*) as n from royalties.payouts where amount is null and raw->>'amount' is not null`,
  );
  return {
    rawWithoutNewField,
    untypedReported: untyped?.n ?? 0,
    typedAsNull: Number(nulls?.n ?? 0),
  };
}

async function runCase(
  name: string,
  label: string,
  fault: FaultCase,
): Promise<Awaited<ReturnType<typeof backfillWith>>> {
  const outcome = await backfillWith(label, fault);
  const diff = differences(reference, outcome.prints);
  results.push({
    name,
    requests: outcome.requests,
    retries: outcome.retries,
    rowsChecked: rowCount(outcome.prints),
    result:
      diff.length === 0 && outcome.progress.failed === 0
        ? "exact"
        : `DIFFERENT: ${diff.join("; ")}`,
  });
  expect(outcome.progress).toMatchObject({ state: "completed", failed: 0 });
  expect(diff).toEqual([]);
  // A case that provoked nothing would prove nothing.
  if (fault.mustRetry !== false) expect(outcome.retries).toBeGreaterThan(0);
  return outcome;
}

beforeAll(async () => {
  const probe = await startSandbox({ today: TODAY });
  tracking = sandboxTracking(probe.data);
  await probe.close();
  // The reference: the same backfill against a healthy upstream, which the warehouse tests
  // reconcile with the sandbox table by table.
  const healthy = await backfillWith("faults_reference", {});
  expect(healthy.progress).toMatchObject({ state: "completed", failed: 0 });
  expect(healthy.drift.untypedReported).toBe(0);
  reference = healthy.prints;
  results.push({
    name: "reference (no fault)",
    requests: healthy.requests,
    retries: healthy.retries,
    rowsChecked: rowCount(reference),
    result: "reference",
  });
});

afterAll(() => {
  const lines = table([
    ["case", "requests", "retries", "rows checked", "result"],
    ...results.map((r) => [
      r.name,
      String(r.requests),
      String(r.retries),
      String(r.rowsChecked),
      r.result,
    ]),
  ]);
  console.log(`\nfault suite\n${lines.join("\n")}\n`);
});

describe("the warehouse stays exact when the upstream misbehaves", () => {
  it("10% of requests fail (503 HTML, 500, reset, truncated 200, slower than the timeout)", async () => {
    await runCase("10% faults of every kind", "faults_random", { knobs: { faultRate: 0.1 } });
  });

  it("a 429 storm with Retry-After", async () => {
    await runCase("429 storm, Retry-After", "faults_429", {
      // Latency keeps several requests in flight when a second's budget runs out: real 429s.
      knobs: { requestsPerSecond: 15, rateLimitHeaders: "retry-after", latencyMs: 60 },
    });
  });

  it("a 429 storm with only X-RateLimit-Reset", async () => {
    await runCase("429 storm, X-RateLimit-Reset only", "faults_429_reset", {
      knobs: { requestsPerSecond: 15, rateLimitHeaders: "reset-only", latencyMs: 60 },
    });
  });

  it("an upstream down for 20 s mid-run that comes back", async () => {
    await runCase("upstream down 20 s", "faults_down", {
      afterRequests: 40,
      during: async (harness) => {
        harness.upstream.sandbox.setKnobs({ down: true });
        await new Promise((resolve) => setTimeout(resolve, 20_000));
        harness.upstream.sandbox.setKnobs({ down: false });
      },
    });
  });

  it("Postgres connections terminated mid-run (pg_terminate_backend)", async () => {
    let killed = 0;
    await runCase("Postgres connections terminated", "faults_pg", {
      afterRequests: 30,
      mustRetry: false,
      // Five rounds, to catch transactions in flight as well as idle pooled connections.
      during: async (harness) => {
        const [me] = await harness.warehouse.query<{ pid: number }>(
          "select pg_backend_pid() as pid",
        );
        const database = new URL(harness.warehouse.url).pathname.slice(1);
        for (let round = 0; round < 5; round++) {
          const [row] = await harness.warehouse.query<{ n: number }>(
            `select count(pg_terminate_backend(pid))::int as n from pg_stat_activity
              where datname = $1 and pid <> $2`,
            [database, me?.pid],
          );
          killed += row?.n ?? 0;
          await new Promise((resolve) => setTimeout(resolve, 150));
        }
      },
    });
    expect(killed).toBeGreaterThan(0);
  });

  it("Redis restarted mid-run (killed, back 2 s later with its append-only file): workers reconnect and finish", async () => {
    const redis = await privateRedis({ persistent: true });
    await redis.start();
    try {
      await runCase("Redis killed and restarted", "faults_redis", {
        redisUrl: redis.url,
        afterRequests: 40,
        mustRetry: false,
        during: async () => {
          await redis.kill();
          await new Promise((resolve) => setTimeout(resolve, 2_000));
          await redis.start();
        },
      });
    } finally {
      // Its append-only file too: the directory is the test's to remove.
      await redis.remove();
    }
  });

  it.each([
    ["SIGKILL", "worker killed mid-partition, then restarted"],
    ["SIGTERM", "worker stopped during a long page loop"],
  ] as const)("%s: %s", async (signal, name) => {
    let stopped = false;
    const outcome = await runCase(name, `faults_${signal.toLowerCase()}`, {
      // Slow pages: partitions of several pages are in progress when the signal comes.
      knobs: { latencyMs: 150 },
      mustRetry: false,
      processes: true,
      afterRequests: 30,
      during: async (harness, workers) => {
        const [first] = workers;
        if (!first) throw new Error("no worker");
        const [running] = await harness.warehouse.query<{ n: number }>(
          "select count(*)::int as n from etl.attempts where status = 'running'",
        );
        expect(running?.n).toBeGreaterThan(0);
        first.child.kill(signal);
        const code = await first.exited;
        expect(code).toBe(signal === "SIGTERM" ? 0 : null);
        stopped = true;
        workers.push(await workers.spawn());
      },
    });
    expect(stopped).toBe(true);
    // What the stopped worker was running is closed: handed back or finished in its grace
    // (SIGTERM), or found abandoned by the worker that took it up (SIGKILL); no attempt is left
    // running, and none failed.
    expect(outcome.attempts.running).toBeUndefined();
    expect(outcome.attempts.failed).toBeUndefined();
    if (signal === "SIGKILL") expect(outcome.attempts.abandoned).toBeGreaterThan(0);
  });
});

describe("a drifting upstream", () => {
  it("stores every record with its raw JSON and reports what it could not type", async () => {
    const outcome = await backfillWith("faults_drift", {
      knobs: {
        drift: {
          extraFields: true,
          renamedEnum: true,
          numbersAsStrings: true,
          nulls: true,
          malformed: true,
        },
      },
    });
    const { rawWithoutNewField, untypedReported, typedAsNull } = outcome.drift;
    // Values change under drift, so the check is the rows, table by table: none lost, none doubled.
    const counts = (prints: Map<string, TableFingerprint>) =>
      [...prints].map(([table, p]) => `${table} ${p.rows}`);
    const sameRows = counts(outcome.prints).join() === counts(reference).join();
    results.push({
      name: "drift (fields, enum, text numbers, nulls, malformed)",
      requests: outcome.requests,
      retries: outcome.retries,
      rowsChecked: rowCount(outcome.prints),
      result:
        sameRows && rawWithoutNewField === 0 && outcome.progress.failed === 0
          ? `all rows, raw kept, ${untypedReported} untyped reported`
          : `DIFFERENT: rows ${sameRows ? "same" : "differ"}, ${rawWithoutNewField} raw without drift`,
    });
    expect(outcome.progress).toMatchObject({ state: "completed", failed: 0 });
    expect(counts(outcome.prints)).toEqual(counts(reference));
    expect(rawWithoutNewField).toBe(0);
    expect(typedAsNull).toBeGreaterThan(0);
    // Every value a typed column could not hold is reported (the reference reports none).
    expect(untypedReported).toBeGreaterThanOrEqual(typedAsNull);
  });
});

describe("bad input is refused at once, clearly, and writes nothing", () => {
  it.each([
    {
      name: "invalid token",
      args: ["sync", "--only", "trend_totals", "--from", "2026-01-03", "--to", "2026-01-03"],
      key: "not-the-key-0000",
      config: {},
      code: 3,
      message: "check MUSIC_API_KEY",
      requests: 1,
    },
    {
      name: "bad config value",
      args: ["sync"],
      config: { requests_per_second: -1 },
      code: 2,
      message: "requests_per_second: must be a number greater than 0",
      requests: 0,
    },
    {
      name: "bad CLI argument",
      args: ["sync", "--from", "yesterday"],
      config: {},
      code: 2,
      message: "--from must be a calendar date",
      requests: 0,
    },
    {
      name: "unknown stream name",
      args: ["sync", "--only", "trends,nope"],
      config: {},
      code: 2,
      message: 'unknown stream "nope"',
      requests: 0,
    },
    {
      name: "--from after --to",
      args: ["backfill", "--from", "2026-01-05", "--to", "2026-01-01"],
      config: {},
      code: 2,
      message: "--from 2026-01-05 is after --to 2026-01-01",
      requests: 0,
    },
  ])("$name", async ({ name, args, key, config, code, message, requests }) => {
    const sandbox = await startSandbox({ today: TODAY, apiKey: "fault-suite-key-1234" });
    const dir = makeTempDir("faults-input");
    const prefix = uniquePrefix("faults-input");
    const database = `music_etl_test_faults_input_${Date.now()}`;
    try {
      dir.write("etl.config.json", { start_date: "2026-01-01", redis_prefix: prefix, ...config });
      const env = etlEnv(sandbox, `${PG_HOST_URL}/${database}`, null, {
        MUSIC_API_KEY: key ?? sandbox.apiKey,
        LOG_LEVEL: "silent",
      });
      // A refused key is met by a command that reaches the upstream: its warehouse exists.
      if (code === 3) expect((await runCli(["migrate"], { cwd: dir.path, env })).code).toBe(0);
      const result = await runCli(args, { cwd: dir.path, env });
      const output = result.stdout + result.stderr;
      const written = await createdDatabase(database);
      const ok =
        result.code === code && output.includes(message) && sandbox.stats().requests === requests;
      results.push({
        name: `bad input: ${name}`,
        requests: sandbox.stats().requests,
        retries: 0,
        rowsChecked: 0,
        result: ok
          ? `exit ${result.code}, clear message`
          : `exit ${result.code}: ${output.slice(0, 80)}`,
      });
      expect(result.code).toBe(code);
      expect(output).toContain(message);
      expect(output).not.toContain("fault-suite-key-1234");
      expect(sandbox.stats().requests).toBe(requests);
      // A refused key stops the run before anything is written; every other refusal happens
      // before the database is even looked for.
      if (code === 2) expect(written).toBe(false);
      else expect(await rowsIn(database)).toBe(0);
    } finally {
      await sandbox.close();
      await dropDatabase(database);
      await deleteKeysWithPrefix(prefix);
      dir.remove();
    }
  });
});

async function createdDatabase(name: string): Promise<boolean> {
  return withDatabaseClient(
    async (c) =>
      ((await c.query("select 1 from pg_database where datname = $1", [name])).rowCount ?? 0) > 0,
  );
}

/** Data rows in the database's warehouse tables (etl's own bookkeeping aside). */
async function rowsIn(name: string): Promise<number> {
  return withDatabaseClient(async (c) => {
    const { rows } = await c.query<{ n: string }>(
      "select coalesce(sum(n_live_tup), 0)::text as n from pg_stat_user_tables where schemaname in ('catalogue', 'sales', 'artist_stats', 'royalties')",
    );
    return Number(rows[0]?.n ?? 0);
  }, name);
}
