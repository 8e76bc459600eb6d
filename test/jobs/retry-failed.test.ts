import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { enqueueRun } from "../../src/jobs/enqueue-run.js";
import { runCli } from "../helpers/cli.js";
import { startQueueHarness, type QueueHarness } from "../helpers/queue-harness.js";
import { trendItemDifferences } from "../helpers/reconcile-trends.js";
import { REDIS_URL } from "../helpers/redis.js";
import { type SyncHarness, startSyncHarness } from "../helpers/sync-harness.js";
import { makeTempDir } from "../helpers/temp-dir.js";

const dir = makeTempDir("retry-failed");
let harness: SyncHarness;
let queues: QueueHarness;

beforeAll(async () => {
  harness = await startSyncHarness("retry_failed", {
    today: "2026-01-31",
    etl: { job_backoff_ms: 10 },
  });
  queues = startQueueHarness(harness);
  queues.startWorker();
  dir.write("etl.config.json", {
    start_date: harness.config.start_date,
    redis_prefix: harness.config.redis_prefix,
  });
});

afterAll(async () => {
  await queues?.close();
  await harness?.close();
  dir.remove();
});

function retryFailed(...args: string[]) {
  return runCli(["retry-failed", ...args], {
    cwd: dir.path,
    env: {
      DATABASE_URL: harness.warehouse.url,
      REDIS_URL,
      ETL_CONFIG: join(dir.path, "etl.config.json"),
      LOG_LEVEL: "silent",
    },
  });
}

async function backfill(day: string, streams: readonly string[] = ["trend_items"]) {
  const { runId } = await enqueueRun(queues.queue, {
    kind: "backfill",
    streams,
    range: { from: day, to: day },
  });
  return queues.waitForRun(runId);
}

/** Attempts recorded per day of trend_items, by outcome: "2026-01-05 failed" → 10. */
async function attemptsByDay(): Promise<Record<string, number>> {
  const rows = await harness.warehouse.query<{ key: string; n: number }>(
    `select split_part(partition, '|', 1) || ' ' || status as key, count(*)::int as n
       from etl.sync_runs where stream = 'trend_items' group by 1`,
  );
  return Object.fromEntries(rows.map((row) => [row.key, row.n]));
}

/** Attempts on one day by stream and outcome: "trend_totals failed" → 5. */
async function attemptsOn(day: string): Promise<Record<string, number>> {
  const rows = await harness.warehouse.query<{ key: string; n: number }>(
    `select stream || ' ' || status as key, count(*)::int as n
       from etl.sync_runs where partition like $1 || '|%' group by 1`,
    [day],
  );
  return Object.fromEntries(rows.map((row) => [row.key, row.n]));
}

describe("etl retry-failed", () => {
  it("says there is nothing to retry, and queues nothing, before anything failed", async () => {
    const result = await retryFailed("--wait");
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("nothing to retry");
    expect(await queues.queue.getJobCountByTypes("wait", "active", "completed", "failed")).toBe(0);
  });

  it("queues the failed partitions within the range, and only those, for the workers", async () => {
    harness.upstream.sandbox.setKnobs({ faultRate: 1, faults: ["error500"] });
    expect(await backfill("2026-01-05")).toMatchObject({ planned: 10, failed: 10 });
    expect(await backfill("2026-01-07")).toMatchObject({ planned: 10, failed: 10 });
    harness.upstream.sandbox.setKnobs({ faultRate: 0 });
    expect(await backfill("2026-01-06")).toMatchObject({ planned: 10, failed: 0 });
    const failedAttempts = (await attemptsByDay())["2026-01-05 failed"] ?? 0;

    const result = await retryFailed("--from", "2026-01-04", "--to", "2026-01-06", "--wait");
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toContain("20 failed partitions (trend_items 20)");
    expect(result.stdout).toContain("10 failed partitions were not retried");

    // 01-05 again, succeeded; 01-06 (succeeded) and 01-07 (outside the range) not touched.
    expect(await attemptsByDay()).toEqual({
      "2026-01-05 failed": failedAttempts,
      "2026-01-05 succeeded": 10,
      "2026-01-06 succeeded": 10,
      "2026-01-07 failed": failedAttempts,
    });
    expect(
      await trendItemDifferences(harness.warehouse, harness.upstream.sandbox, ["2026-01-05"]),
    ).toEqual([]);
    const stillFailed = await harness.warehouse.query<{ partition: string }>(
      `select partition from etl.stream_state where last_status = 'failed' order by 1`,
    );
    expect(stillFailed.map((row) => row.partition.slice(0, 10))).toEqual(
      Array<string>(10).fill("2026-01-07"),
    );
  });

  it("without a range, retries every failed partition", async () => {
    const result = await retryFailed("--only", "trends", "--wait");
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toContain("10 failed partitions (trend_items 10)");
    expect(result.stdout).not.toContain("not retried");
    expect((await attemptsByDay())["2026-01-07 succeeded"]).toBe(10);
    expect(
      await trendItemDifferences(harness.warehouse, harness.upstream.sandbox, ["2026-01-07"]),
    ).toEqual([]);
  });

  it("with --only, retries the streams named and leaves another's failures failed", async () => {
    harness.upstream.sandbox.setKnobs({ faultRate: 1, faults: ["error500"] });
    expect(await backfill("2026-01-08", ["trend_items", "trend_totals"])).toMatchObject({
      planned: 15,
      failed: 15,
    });
    harness.upstream.sandbox.setKnobs({ faultRate: 0 });
    const before = await attemptsOn("2026-01-08");
    expect(Object.keys(before).sort()).toEqual(["trend_items failed", "trend_totals failed"]);

    const result = await retryFailed("--only", "trend_totals", "--wait");
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toContain("5 failed partitions (trend_totals 5)");
    expect(result.stdout).not.toContain("trend_items");

    // trend_items was not queued again: no attempt of it since, and its partitions still failed.
    expect(await attemptsOn("2026-01-08")).toEqual({ ...before, "trend_totals succeeded": 5 });
    const failedNow = await harness.warehouse.query<{ stream: string; n: number }>(
      `select stream, count(*)::int as n from etl.stream_state
        where last_status = 'failed' group by stream order by stream`,
    );
    expect(failedNow).toEqual([{ stream: "trend_items", n: 10 }]);
  });
});
