import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { enqueueRun } from "../../src/jobs/enqueue-run.js";
import { SandboxDataset } from "../../sandbox/dataset/dataset.js";
import { resolveSize } from "../../sandbox/size.js";
import { startQueueHarness, type QueueHarness } from "../helpers/queue-harness.js";
import { type SyncHarness, startSyncHarness } from "../helpers/sync-harness.js";

const TODAY = "2026-01-31";
// 10 artists × 30 days: three times the artist-day partitions the run keeps queued at once
// (plan_window), so it tops its window up, and adds, several times.
const SIZE = { socialArtists: 10, days: 30 };
const WINDOW = 100;

let harness: SyncHarness;
let queues: QueueHarness;

beforeAll(async () => {
  const artists = new SandboxDataset(1, resolveSize(SIZE), TODAY).socialArtists();
  harness = await startSyncHarness("large-run", {
    today: TODAY,
    sandbox: { size: SIZE },
    etl: {
      social_artist_ids: artists.map((artist) => artist.cm_artist),
      worker_concurrency: 8,
      job_backoff_ms: 10,
      plan_window: WINDOW,
    },
  });
  queues = startQueueHarness(harness);
});

afterAll(async () => {
  await queues.close();
  await harness.close();
});

describe("a run with more partitions than its window", () => {
  it("adds every partition once and runs each once", async () => {
    await harness.sync({ only: ["artist_stats_artists"] });
    const { runId } = await enqueueRun(queues.queue, {
      kind: "backfill",
      streams: ["artist_stats_radio_airplays"],
      range: { from: "2026-01-01", to: "2026-01-30" },
    });
    queues.startWorker();
    const progress = await queues.waitForRun(runId);
    expect(progress).toMatchObject({
      state: "completed",
      planned: 300,
      succeeded: 300,
      failed: 0,
    });
    const [runs] = await harness.warehouse.query<{ attempts: number; partitions: number }>(
      `select count(*)::int as attempts, count(distinct partition)::int as partitions
         from etl.attempts where stream = 'artist_stats_radio_airplays'`,
    );
    expect(runs).toEqual({ attempts: 300, partitions: 300 });
  });
});
