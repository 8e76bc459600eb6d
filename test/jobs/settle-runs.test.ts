import { hostname } from "node:os";
import type { Queue } from "bullmq";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { etlConfigSchema } from "../../src/config/etl-config-schema.js";
import { createEtlQueue } from "../../src/jobs/etl-queue.js";
import { settleRuns } from "../../src/jobs/settle-runs.js";
import { PROCESS_IDENTITY } from "../../src/process-identity.js";
import { recordForegroundRun } from "../../src/warehouse/runs.js";
import { deleteKeysWithPrefix, REDIS_URL, uniquePrefix } from "../helpers/redis.js";
import { createTestWarehouse, type TestWarehouse } from "../helpers/warehouse.js";

const prefix = uniquePrefix("settle_runs");
let warehouse: TestWarehouse;
let queue: Queue;

beforeAll(async () => {
  warehouse = await createTestWarehouse("settle_runs");
  queue = createEtlQueue(
    REDIS_URL,
    etlConfigSchema.parse({ start_date: "2026-01-01", redis_prefix: prefix }),
  );
});

afterAll(async () => {
  await queue.close();
  await warehouse.drop();
  await deleteKeysWithPrefix(prefix);
});

describe("settling the foreground runs", () => {
  it("records interrupted a sync whose process is gone from this host, and only that one", async () => {
    const run = { kind: "sync", streams: ["trend_items"], range: {} };
    // No process has this id (above the kernel's largest), on this host and on another.
    await recordForegroundRun(warehouse.db, {
      ...run,
      runId: "run-gone",
      queuedBy: `${hostname()} pid 4194399`,
    });
    await recordForegroundRun(warehouse.db, {
      ...run,
      runId: "run-elsewhere",
      queuedBy: "another-host pid 4194399",
    });
    await recordForegroundRun(warehouse.db, {
      ...run,
      runId: "run-alive",
      queuedBy: PROCESS_IDENTITY,
    });
    expect(await settleRuns(warehouse.db, queue)).toEqual({ lost: 0, finished: 0, stopped: 1 });
    const rows = await warehouse.query<{ run_id: string; status: string; finished: boolean }>(
      "select run_id, status, finished_at is not null as finished from etl.runs order by run_id",
    );
    expect(rows).toEqual([
      { run_id: "run-alive", status: "running", finished: false },
      { run_id: "run-elsewhere", status: "running", finished: false },
      { run_id: "run-gone", status: "interrupted", finished: true },
    ]);
  });
});
