import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { enqueueRun } from "../../jobs/enqueue-run.js";
import { table } from "../../src/cli/output.js";
import { sandboxTracking } from "../../src/demo/sandbox-tracking.js";
import { type SandboxKnobs, startSandbox } from "../../src/sandbox/index.js";
import { startQueueHarness } from "../helpers/queue-harness.js";
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
  readonly knobs?: Partial<SandboxKnobs>;
  /** Something to break once the run is under way (after `afterRequests` requests). */
  readonly during?: (harness: SyncHarness) => Promise<void>;
  readonly afterRequests?: number;
}

/** A backfill through the queue with a worker, the fault applied; returns the stored prints. */
async function backfillWith(label: string, fault: FaultCase) {
  let retries = 0;
  const harness = await startSyncHarness(label, {
    today: TODAY,
    etl: { ...tracking, ...RESILIENT },
    sandbox: { knobs: { slowMs: 3_000, ...fault.knobs } },
    http: {
      retryBaseMs: 100,
      retryMaxDelayMs: 1_000,
      onAttempt: (e) => void (e.attempt > 1 && retries++),
    },
  });
  const queues = startQueueHarness(harness);
  try {
    queues.startWorker();
    const { runId } = await enqueueRun(queues.queue, {
      kind: "backfill",
      streams: STREAMS,
      range: RANGE,
    });
    if (fault.during) {
      while (harness.upstream.sandbox.stats().requests < (fault.afterRequests ?? 20)) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      await fault.during(harness);
    }
    const progress = await queues.waitForRun(runId, 240_000);
    const stats = harness.upstream.sandbox.stats();
    // Partition attempts that failed and were retried by the queue.
    const [failedAttempts] = await harness.warehouse.query<{ n: number }>(
      "select count(*)::int as n from etl.sync_runs where status <> 'succeeded'",
    );
    return {
      progress,
      prints: await fingerprints(harness.warehouse),
      requests: stats.requests,
      retries: retries + stats.rateLimited + (failedAttempts?.n ?? 0),
    };
  } finally {
    await queues.close();
    await harness.close();
  }
}

async function runCase(name: string, label: string, fault: FaultCase): Promise<void> {
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
  expect(outcome.retries).toBeGreaterThan(0);
}

beforeAll(async () => {
  const probe = await startSandbox({ today: TODAY });
  tracking = sandboxTracking(probe.data);
  await probe.close();
  // The reference: the same backfill against a healthy upstream, which the warehouse tests
  // reconcile with the sandbox table by table.
  const healthy = await backfillWith("faults_reference", {});
  expect(healthy.progress).toMatchObject({ state: "completed", failed: 0 });
  reference = healthy.prints;
  results.push({
    name: "reference (no fault)",
    requests: healthy.requests,
    retries: healthy.retries,
    rowsChecked: rowCount(reference),
    result: "reference",
  });
}, 300_000);

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
    await runCase("Postgres connections terminated", "faults_pg", {
      afterRequests: 60,
      during: async (harness) => {
        const [me] = await harness.warehouse.query<{ pid: number }>(
          "select pg_backend_pid() as pid",
        );
        const database = new URL(harness.warehouse.url).pathname.slice(1);
        const killed = await harness.warehouse.query<{ n: number }>(
          `select count(pg_terminate_backend(pid))::int as n from pg_stat_activity
            where datname = $1 and pid <> $2`,
          [database, me?.pid],
        );
        expect(killed[0]?.n).toBeGreaterThan(0);
      },
    });
  });
});
