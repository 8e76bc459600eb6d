import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { enqueueRun } from "../../src/jobs/enqueue-run.js";
import { startQueueHarness, type QueueHarness } from "../helpers/queue-harness.js";
import { type SyncHarness, startSyncHarness } from "../helpers/sync-harness.js";

// A partition job whose rows are committed is done: the page sizes it learned, if they cannot be
// written then (Postgres went away as the job ended), wait with the worker's deferred records.

const TODAY = "2026-01-31";
let harness: SyncHarness;
let queues: QueueHarness;

beforeAll(async () => {
  harness = await startSyncHarness("page_sizes_deferred", {
    today: TODAY,
    etl: { job_backoff_ms: 10 },
    sandbox: { knobs: { shapes: { pageCap: 7 } } },
  });
  queues = startQueueHarness(harness);
});

afterAll(async () => {
  await queues.close();
  await harness.close();
});

describe("page sizes a partition learned", () => {
  it("that cannot be saved spend no attempt, and are saved later", async () => {
    // Every write of a page size fails, as it would with Postgres gone.
    await harness.warehouse.query(`
      create function refuse_page_size() returns trigger language plpgsql
        as $$ begin raise exception 'refused'; end $$;
      create trigger refuse before insert on etl.page_sizes
        for each row execute function refuse_page_size();`);
    const { runId } = await enqueueRun(queues.queue, {
      kind: "backfill",
      streams: ["trend_items"],
      range: { from: "2026-01-03", to: "2026-01-03" },
    });
    queues.startWorker();
    const progress = await queues.waitForRun(runId);
    expect(progress).toMatchObject({ planned: 10, succeeded: 10, failed: 0 });
    const jobs = await queues.queue.getJobs(["completed", "failed"]);
    const spent = jobs.filter(
      (job) => job.name === "partition" && (job.attemptsMade > 1 || job.failedReason),
    );
    expect(spent).toEqual([]);
    expect(await harness.warehouse.query("select 1 from etl.page_sizes")).toEqual([]);

    await harness.warehouse.query("drop trigger refuse on etl.page_sizes");
    // A stopping worker writes what it deferred.
    await queues.close();
    expect(await harness.warehouse.query("select operation, cap from etl.page_sizes")).toEqual([
      { operation: "trends.list", cap: 7 },
    ]);
  });
});
