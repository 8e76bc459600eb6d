import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { enqueueRun } from "../../src/jobs/enqueue-run.js";
import { jobOptions } from "../../src/jobs/etl-queue.js";
import { PARTITION_JOB, RUN_JOB } from "../../src/jobs/job-types.js";
import { lockPartition, type PartitionLock } from "../../src/jobs/partition-lock.js";
import { until } from "../helpers/until.js";
import { startQueueHarness, type QueueHarness } from "../helpers/queue-harness.js";
import { streamSpans } from "../helpers/stream-spans.js";
import { demoTracking, type SyncHarness, startSyncHarness } from "../helpers/sync-harness.js";

const TODAY = "2026-01-31";
let harness: SyncHarness;
let queues: QueueHarness;

beforeAll(async () => {
  const tracking = await demoTracking(TODAY);
  harness = await startSyncHarness("backfill", {
    today: TODAY,
    etl: { ...tracking, job_backoff_ms: 10, job_lock_ms: 2_000 },
  });
  queues = startQueueHarness(harness);
});

afterAll(async () => {
  await queues.close();
  await harness.close();
});

/** Takes a partition's lock as another run's job would: no job of this file's worker runs it. */
async function holdPartition(stream: string, partition: string): Promise<PartitionLock> {
  const held = await lockPartition(
    harness.upstream.context.redis,
    harness.config.redis_prefix,
    stream,
    partition,
    10_000,
  );
  if (!held) throw new Error(`could not take the lock of ${stream} ${partition}`);
  return held;
}

describe("a backfill through the queue", () => {
  it("fans out into partition jobs and lands exactly what the sandbox serves", async () => {
    const data = {
      kind: "backfill" as const,
      streams: ["trend_totals", "trend_items"],
      range: { from: "2026-01-03", to: "2026-01-04" },
    };
    const first = await enqueueRun(queues.queue, data);
    const second = await enqueueRun(queues.queue, data);
    expect(first.added).toBe(true);
    expect(second).toEqual({ runId: first.runId, added: false });

    queues.startWorker();
    const progress = await queues.waitForRun(first.runId);
    expect(progress.error).toBeUndefined();
    expect(progress).toMatchObject({
      state: "completed",
      streamsPlanned: 2,
      planned: 2 * 5 + 2 * 10,
      succeeded: 30,
      failed: 0,
    });

    const [row] = await harness.warehouse.query<{ n: number }>(
      "select count(*)::int as n from sales.trend_items",
    );
    const expected = ["2026-01-03", "2026-01-04"].flatMap((day) =>
      (["dsp", "territory", "label", "product", "asset"] as const).flatMap((selection) =>
        (["stream", "download"] as const).map(
          (sale) => harness.upstream.sandbox.data.trendList(day, day, selection, sale).length,
        ),
      ),
    );
    expect(row?.n).toBe(expected.reduce((a, b) => a + b, 0));
    // The worker settles the analytics roles as the run ends, from what it wrote.
    await until(async () => {
      const [settled] = await harness.warehouse.query<{ n: number }>(
        `select count(*)::int as n from etl.role_changes
          where run_id = $1 and role = 'trend_item_units' and to_column = 'count'
            and to_how = 'inferred'`,
        [first.runId],
      );
      return settled?.n === 10;
    });
  });

  it("plans a stream from another's rows only once that stream's partitions have finished", async () => {
    const { runId } = await enqueueRun(queues.queue, {
      kind: "backfill",
      // Out of order on purpose: the run orders them.
      streams: ["artist_stats_urls", "trend_totals", "artist_stats_artists", "artists"],
      range: { from: "2026-01-08", to: "2026-01-08" },
    });
    const progress = await queues.waitForRun(runId);
    expect(progress).toMatchObject({ state: "completed", streamsPlanned: 4, failed: 0 });
    const span = await streamSpans(harness.warehouse);
    expect(span("artist_stats_artists").first).toBeGreaterThan(span("artists").last);
    expect(span("artist_stats_urls").first).toBeGreaterThan(span("artist_stats_artists").last);
    // Planned from the tracked artists the same run found: one urls partition for each.
    const [row] = await harness.warehouse.query<{ tracked: number; partitions: number }>(
      `select (select count(*)::int from artist_stats.artists) as tracked,
              (select count(distinct partition)::int from etl.attempts
                where stream = 'artist_stats_urls') as partitions`,
    );
    expect(row?.tracked).toBeGreaterThan(1);
    expect(row?.partitions).toBe(row?.tracked);
  });

  it("plans independent streams without waiting: later ones run while an earlier one's partition cannot", async () => {
    // trend_totals, listed first of streams that wait for nothing, is planned first; one of its
    // partitions cannot finish while the test holds its lock. A run that waited for a stream's
    // partitions before planning the next would plan nothing more, and the other streams'
    // attempts below would never come.
    const held = await holdPartition("trend_totals", "2026-01-09|dsp");
    const attempts = async () =>
      await harness.warehouse.query<{ stream: string; n: number }>(
        `select stream, count(*)::int as n from etl.attempts
          where partition like '2026-01-09|%' and status = 'succeeded' group by 1 order by 1`,
      );
    // Every partition of the streams planned after it, 5 selection types × 2 sale types each,
    // and the other four of trend_totals.
    const whileHeld = [
      { stream: "trend_chart_points", n: 10 },
      { stream: "trend_items", n: 10 },
      { stream: "trend_totals", n: 4 },
    ];
    let observed: { runId: string; seen: typeof whileHeld; heldStarted: unknown[] };
    try {
      const { runId } = await enqueueRun(queues.queue, {
        kind: "backfill",
        streams: ["trend_totals", "trend_items", "trend_chart_points"],
        range: { from: "2026-01-09", to: "2026-01-09" },
      });
      const deadline = Date.now() + 20_000;
      let seen = await attempts();
      while (JSON.stringify(seen) !== JSON.stringify(whileHeld) && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        seen = await attempts();
      }
      const heldStarted = await harness.warehouse.query(
        "select 1 from etl.attempts where stream = 'trend_totals' and partition = '2026-01-09|dsp'",
      );
      observed = { runId, seen, heldStarted };
    } finally {
      await held.release();
    }
    // Finished before anything is asserted, so that a failure leaves no run to the next test.
    const progress = await queues.waitForRun(observed.runId);
    expect(observed.seen).toEqual(whileHeld);
    expect(observed.heldStarted).toEqual([]);
    expect(progress).toMatchObject({
      state: "completed",
      streamsPlanned: 3,
      planned: 5 + 10 + 10,
      succeeded: 25,
      failed: 0,
    });
    expect(await attempts()).toContainEqual({ stream: "trend_totals", n: 5 });
  });

  it("retries a failing partition job with backoff, then keeps it visible as failed with its error", async () => {
    harness.upstream.sandbox.setKnobs({ faultRate: 1, faults: ["error500"] });
    try {
      const { runId } = await enqueueRun(queues.queue, {
        kind: "backfill",
        streams: ["trend_totals"],
        range: { from: "2026-01-05", to: "2026-01-05" },
      });
      const progress = await queues.waitForRun(runId);
      expect(progress).toMatchObject({ state: "completed", planned: 5, succeeded: 0, failed: 5 });
      const failed = await queues.queue.getJobs(["failed"]);
      expect(failed).toHaveLength(5);
      for (const job of failed) {
        expect(job.attemptsMade).toBe(harness.config.job_attempts);
        expect(job.failedReason).toMatch(/trends\.total .*HTTP 500/);
      }
    } finally {
      harness.upstream.sandbox.setKnobs({ faultRate: 0 });
    }
  });

  it("never processes a partition another job holds: it waits for the lock, then runs", async () => {
    const held = await holdPartition("trend_totals", "2026-01-06|dsp");
    const { runId } = await enqueueRun(queues.queue, {
      kind: "backfill",
      streams: ["trend_totals"],
      range: { from: "2026-01-06", to: "2026-01-06" },
    });
    const synced = async () =>
      (
        await harness.warehouse.query<{ partition: string }>(
          "select partition from etl.stream_state where stream = 'trend_totals' and partition like '2026-01-06|%' and last_status = 'succeeded' order by 1",
        )
      ).map((r) => r.partition);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(await synced()).toEqual([
      "2026-01-06|asset",
      "2026-01-06|label",
      "2026-01-06|product",
      "2026-01-06|territory",
    ]);
    await held.release();
    expect(await queues.waitForRun(runId)).toMatchObject({
      state: "completed",
      succeeded: 5,
      failed: 0,
    });
    expect(await synced()).toContain("2026-01-06|dsp");
  });

  it.each([
    ["partition", PARTITION_JOB, { stream: "no_such_stream", partition: { key: "2026-01-07" } }],
    [
      "run",
      RUN_JOB,
      { kind: "backfill", streams: ["no_such_stream"], range: { from: "2026-01-07" } },
    ],
  ])("fails a %s job naming an unknown stream at once, with no retry", async (_, name, data) => {
    const job = await queues.queue.add(name, data, jobOptions(harness.config));
    expect(harness.config.job_attempts).toBeGreaterThan(1);
    const deadline = Date.now() + 20_000;
    while ((await job.getState()) !== "failed") {
      if (Date.now() > deadline) throw new Error(`job still ${await job.getState()}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const failed = await queues.queue.getJob(job.id ?? "");
    expect(failed?.attemptsMade).toBe(1);
    expect(failed?.failedReason).toContain('unknown stream "no_such_stream"');
  });

  it("trims completed jobs by count and age, and keeps failed ones for a month", async () => {
    const [job] = await queues.queue.getJobs(["completed"], 0, 0);
    expect(job?.opts.removeOnComplete).toEqual({ count: 5_000, age: 7 * 24 * 3600 });
    expect(job?.opts.removeOnFail).toEqual({ age: 30 * 24 * 3600 });
  });
});
