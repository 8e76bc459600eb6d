import { join } from "node:path";
import type { Job } from "bullmq";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { enqueueRun } from "../../src/jobs/enqueue-run.js";
import { PARTITION_JOB, type PartitionJobData } from "../../src/jobs/job-types.js";
import { planPartitions } from "../../src/runner/plan/plan-partitions.js";
import { selectStreams } from "../../src/streams/registry.js";
import type { Partition } from "../../src/streams/partition.js";
import { runCli } from "../helpers/cli.js";
import { startQueueHarness, type QueueHarness } from "../helpers/queue-harness.js";
import { trendItemDifferences } from "../helpers/reconcile-trends.js";
import { REDIS_URL } from "../helpers/redis.js";
import { type SyncHarness, startSyncHarness } from "../helpers/sync-harness.js";
import { makeTempDir } from "../helpers/temp-dir.js";
import { HANG_MS } from "../helpers/hang-limit.js";

const dir = makeTempDir("retry-failed");
let harness: SyncHarness;
let queues: QueueHarness;

beforeAll(async () => {
  harness = await startSyncHarness("retry_failed", {
    today: "2026-01-31",
    // A partition the upstream fails fails for good sooner (a retried request, a retried job),
    // as it must before retry-failed picks it up: what retry-failed does is the same.
    etl: { job_backoff_ms: 10, job_attempts: 2, max_retries: 1 },
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

function etl(...args: string[]) {
  return runCli(args, {
    cwd: dir.path,
    env: {
      DATABASE_URL: harness.warehouse.url,
      REDIS_URL,
      ETL_CONFIG: join(dir.path, "etl.config.json"),
      LOG_LEVEL: "silent",
    },
  });
}

function retryFailed(...args: string[]) {
  return etl("retry-failed", ...args);
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
       from etl.attempts where stream = 'trend_items' group by 1`,
  );
  return Object.fromEntries(rows.map((row) => [row.key, row.n]));
}

/** Attempts on one day by stream and outcome: "trend_totals failed" → 5. */
async function attemptsOn(day: string): Promise<Record<string, number>> {
  const rows = await harness.warehouse.query<{ key: string; n: number }>(
    `select stream || ' ' || status as key, count(*)::int as n
       from etl.attempts where partition like $1 || '|%' group by 1`,
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
    // What is queued, not every failure: those of 01-07 are outside the range.
    expect(result.stdout).toContain("queued: 10 failed partitions (trend_items 10)");
    expect(result.stdout).toContain("10 other partitions failed for good and are not queued");

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
    expect(result.stdout).not.toContain("not queued");
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

  describe("a partition whose job has attempts left", () => {
    let exhausted: Partition;
    let lost: Partition;
    let jobs: Job[];
    /** The failed partitions of trend_totals and the job each waits for (null: none). */
    const marks = async () =>
      Object.fromEntries(
        (
          await harness.warehouse.query<{ partition: string; retry_job_id: string | null }>(
            `select partition, retry_job_id from etl.stream_state
              where stream = 'trend_totals' and last_status = 'failed'`,
          )
        ).map((row) => [row.partition, row.retry_job_id]),
      );
    const counted = () =>
      harness.warehouse.query(
        `select failed_partitions, retrying_partitions from analytics.stream_freshness
          where stream = 'trend_totals'`,
      );

    beforeAll(async () => {
      const [stream] = selectStreams(["trend_totals"]);
      if (!stream) throw new Error("no trend_totals stream");
      const partitions: Partition[] = [];
      for await (const slice of planPartitions(
        { db: harness.warehouse.db, config: harness.config, today: "2026-01-31" },
        stream,
        { from: "2026-01-09", to: "2026-01-09" },
      )) {
        partitions.push(...slice);
      }
      const [first, second] = partitions;
      if (!first || !second) throw new Error("trend_totals plans fewer than two partitions a day");
      [exhausted, lost] = [first, second];
      // Jobs of two attempts whose second would come an hour after the first fails.
      harness.upstream.sandbox.setKnobs({ faultRate: 1, faults: ["error500"] });
      jobs = await Promise.all(
        [exhausted, lost].map((partition, i) =>
          queues.queue.add(
            PARTITION_JOB,
            { stream: stream.name, partition } satisfies PartitionJobData,
            {
              jobId: `two-attempts-${i}`,
              attempts: 2,
              backoff: { type: "fixed", delay: 3_600_000 },
            },
          ),
        ),
      );
      await vi.waitFor(
        async () => {
          expect(await Promise.all(jobs.map((job) => job.getState()))).toEqual([
            "delayed",
            "delayed",
          ]);
          expect(await marks()).toEqual({
            [exhausted.key]: "two-attempts-0",
            [lost.key]: "two-attempts-1",
          });
        },
        { timeout: HANG_MS, interval: 100 },
      );
      harness.upstream.sandbox.setKnobs({ faultRate: 0 });
    });

    it("is left to that job: counted retrying, not failed for good, and not queued again", async () => {
      const early = await retryFailed("--only", "trend_totals", "--wait");
      expect(early.code, early.stdout + early.stderr).toBe(0);
      expect(early.stdout).toContain("no partition failed for good: nothing to retry");
      expect(early.stdout).toContain("2 partitions failed an attempt and are not queued");
      expect(await counted()).toEqual([{ failed_partitions: 0, retrying_partitions: 2 }]);
      expect(await Promise.all(jobs.map((job) => job.getState()))).toEqual(["delayed", "delayed"]);
    });

    it("fails for good once its job spends its last attempt, or once its job is gone", async () => {
      // One job spends its last attempt: the worker records the failure as final once BullMQ has
      // failed the job. The other is lost (removed, as when Redis is flushed): no attempt comes.
      harness.upstream.sandbox.setKnobs({ faultRate: 1, faults: ["error500"] });
      await jobs[0]?.promote();
      await vi.waitFor(
        async () => {
          expect(await jobs[0]?.getState()).toBe("failed");
          expect((await marks())[exhausted.key]).toBeNull();
        },
        { timeout: HANG_MS, interval: 100 },
      );
      harness.upstream.sandbox.setKnobs({ faultRate: 0 });
      await jobs[1]?.remove();
      // `status` settles the marks of jobs that are gone.
      const status = await etl("status");
      expect(status.code, status.stderr).toBe(0);
      expect(await marks()).toEqual({ [exhausted.key]: null, [lost.key]: null });
      expect(await counted()).toEqual([{ failed_partitions: 2, retrying_partitions: 0 }]);
    });

    it("is then queued once by retry-failed, and succeeds", async () => {
      const result = await retryFailed("--only", "trend_totals", "--wait");
      expect(result.code, result.stdout + result.stderr).toBe(0);
      expect(result.stdout).toContain("queued: 2 failed partitions (trend_totals 2)");
      expect(result.stdout).not.toContain("not queued");
      expect(await marks()).toEqual({});
      const attempts = await harness.warehouse.query<{
        partition: string;
        status: string;
        n: number;
      }>(
        `select partition, status, count(*)::int as n from etl.attempts
          where stream = 'trend_totals' and partition = any($1) group by 1, 2 order by 1, 2`,
        [[exhausted.key, lost.key]],
      );
      expect(attempts).toEqual([
        ...[exhausted.key, lost.key].sort().flatMap((partition) => [
          { partition, status: "failed", n: partition === exhausted.key ? 2 : 1 },
          { partition, status: "succeeded", n: 1 },
        ]),
      ]);
    });
  });

  it("settles, as a run starts, a failure whose job is gone: metrics and the view count it", async () => {
    const [partition] = (
      await harness.warehouse.query<{ partition: string }>(
        `select partition from etl.stream_state where stream = 'trend_totals' limit 1`,
      )
    ).map((row) => row.partition);
    if (!partition) throw new Error("the tests before left no trend_totals partition");
    await harness.warehouse.query(
      `update etl.stream_state set last_status = 'failed', retry_job_id = 'no-such-job'
        where stream = 'trend_totals' and partition = $1`,
      [partition],
    );
    expect(await backfill("2026-01-10", ["trend_totals"])).toMatchObject({ failed: 0 });
    expect(
      await harness.warehouse.query(
        `select failed_partitions, retrying_partitions from analytics.stream_freshness
          where stream = 'trend_totals'`,
      ),
    ).toEqual([{ failed_partitions: 1, retrying_partitions: 0 }]);
  });
});
