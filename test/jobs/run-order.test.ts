import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { enqueueRun } from "../../src/jobs/enqueue-run.js";
import { startQueueHarness, type QueueHarness } from "../helpers/queue-harness.js";
import { demoTracking, type SyncHarness, startSyncHarness } from "../helpers/sync-harness.js";
import { HANG_MS } from "../helpers/hang-limit.js";

const TODAY = "2026-01-31";
const WINDOW = 20;
let harness: SyncHarness;
let queues: QueueHarness;

beforeAll(async () => {
  const tracking = await demoTracking(TODAY);
  harness = await startSyncHarness("run_order", {
    today: TODAY,
    // One partition at a time: the order jobs are taken in is the order attempts start in.
    etl: { ...tracking, worker_concurrency: 1, plan_window: WINDOW, job_backoff_ms: 10 },
  });
  queues = startQueueHarness(harness);
});

afterAll(async () => {
  await queues.close();
  await harness.close();
});

/** The run's attempts in the order they started: stream and partition. */
async function attempts(runId: string): Promise<{ stream: string; partition: string }[]> {
  return harness.warehouse.query<{ stream: string; partition: string }>(
    "select stream, partition from etl.attempts where run = $1 order by attempt_id",
    [runId],
  );
}

/** Jobs the queue holds that a worker will still run (the run jobs among them). */
async function jobsToRun(): Promise<number> {
  const counts = await queues.queue.getJobCounts(
    "waiting",
    "prioritized",
    "delayed",
    "active",
    "waiting-children",
  );
  return Object.values(counts).reduce((a, b) => a + b, 0);
}

describe("the order a backfill runs in", () => {
  it("runs its newest days first, with no more than its window queued at once", async () => {
    // 12 days of 5 selection types: 60 partitions, three windows of 20 and more.
    const { runId } = await enqueueRun(queues.queue, {
      kind: "backfill",
      streams: ["trend_totals"],
      range: { from: "2026-01-08", to: "2026-01-19" },
    });
    const worker = queues.startWorker();
    let most = 0;
    let mostDone = 0;
    let finished = false;
    const client = await queues.queue.getBackend().client;
    const watching = (async () => {
      while (!finished) {
        most = Math.max(most, await jobsToRun());
        // The children done that BullMQ keeps beside the run, folded into a count as it goes.
        const done = Object.keys(await client.hgetall(`${queues.queue.toKey(runId)}:processed`));
        mostDone = Math.max(mostDone, done.length);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();
    const progress = await queues.waitForRun(runId);
    finished = true;
    await watching;
    await worker.stop(1_000);
    expect(progress).toMatchObject({ state: "completed", planned: 60, succeeded: 60, failed: 0 });
    // The window's partitions and the run's own job.
    expect(most).toBeGreaterThanOrEqual(WINDOW);
    expect(most).toBeLessThanOrEqual(WINDOW + 1);
    expect(mostDone).toBeLessThanOrEqual(2 * WINDOW);
    const days = (await attempts(runId)).map((a) => a.partition.slice(0, 10));
    expect(days).toHaveLength(60);
    expect(days).toEqual([...days].sort().reverse());
    expect(days[0]).toBe("2026-01-19");
  });

  it("runs a stream planned later (its artists known) newest day first, before older days queued", async () => {
    // Answers slow enough that the run plans the radio (at its next look, once the artists are
    // written) while the trends' older days it queued first still wait.
    harness.upstream.sandbox.setKnobs({ latencyMs: 100 });
    const { runId } = await enqueueRun(queues.queue, {
      kind: "backfill",
      streams: ["artist_stats_artists", "trend_totals", "artist_stats_radio"],
      range: { from: "2026-01-08", to: "2026-01-19" },
    });
    const worker = queues.startWorker();
    const progress = await queues.waitForRun(runId);
    await worker.stop(1_000);
    harness.upstream.sandbox.setKnobs({ latencyMs: 0 });
    expect(progress).toMatchObject({ state: "completed", failed: 0 });
    const runs = await attempts(runId);
    // The radio was planned once the tracked artists were written, after the trends' newest
    // days were queued (and the newest ones started): it still goes by day with them, each of
    // its days before any partition two days older, never after every trends day queued first.
    const dated = runs.filter((a) => a.stream !== "artist_stats_artists");
    expect(dated.some((a) => a.stream === "artist_stats_radio")).toBe(true);
    const day = (a: { partition: string }) => Date.parse(a.partition.slice(0, 10)) / 86_400_000;
    const late = dated.flatMap((a, i) =>
      a.stream === "artist_stats_radio" &&
      dated.slice(0, i).some((before) => day(before) <= day(a) - 2)
        ? [a.partition]
        : [],
    );
    expect(late).toEqual([]);
  });

  it("lets a scheduled run's partitions overtake the backfill's queued ones", async () => {
    const backfill = await enqueueRun(queues.queue, {
      kind: "backfill",
      streams: ["trend_totals"],
      range: { from: "2026-01-08", to: "2026-01-19" },
    });
    const worker = queues.startWorker();
    // The backfill under way, its window queued.
    await vi.waitFor(
      async () => expect((await attempts(backfill.runId)).length).toBeGreaterThanOrEqual(5),
      { timeout: HANG_MS, interval: 50 },
    );
    const scheduled = await enqueueRun(queues.queue, {
      kind: "schedule",
      streams: ["trend_items"],
      range: { from: "2026-01-20", to: "2026-01-20" },
    });
    const backfillAtQueueing = (await attempts(backfill.runId)).length;
    const scheduledProgress = await queues.waitForRun(scheduled.runId);
    expect(scheduledProgress).toMatchObject({ state: "completed", planned: 10, failed: 0 });
    // Every attempt of both runs in the order they started (one worker slot): once queued, the
    // scheduled run's ten come next, after at most the backfill's partition in hand.
    const order = (
      await harness.warehouse.query<{ run: string }>(
        "select run from etl.attempts where run = any($1) order by attempt_id",
        [[backfill.runId, scheduled.runId]],
      )
    ).map((a) => (a.run === scheduled.runId ? "S" : "B"));
    const first = order.indexOf("S");
    expect(order.slice(first, first + 10)).toEqual(Array(10).fill("S"));
    expect(first - backfillAtQueueing).toBeLessThanOrEqual(1);
    const progress = await queues.waitForRun(backfill.runId);
    await worker.stop(1_000);
    expect(progress).toMatchObject({ state: "completed", planned: 60, succeeded: 60, failed: 0 });
  });
});
