import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AuthError, UpstreamStatusError } from "../../src/errors.js";
import { runSync } from "../../src/streams/run-sync.js";
import { defineStream, type Partition } from "../../src/streams/stream.js";
import { createLogger } from "../../src/logging/logger.js";
import { etlConfigSchema } from "../../src/config/etl-config-schema.js";
import type { ApiClient } from "../../src/api/api-client.js";
import { createTestWarehouse, type TestWarehouse } from "../helpers/warehouse.js";

const request = { operation: "test.op", method: "GET", path: "/test" };
let warehouse: TestWarehouse;

beforeAll(async () => {
  warehouse = await createTestWarehouse("runner");
});

afterAll(() => warehouse.drop());

/** A stream over sales.trend_totals whose fetch is the test's: the runner is what is tested. */
function testStream(
  name: string,
  days: string[],
  fetch: (day: string, cursor: unknown) => unknown,
) {
  return defineStream<Partition & { day: string }, { day: string; n: number }>({
    name,
    family: "trends",
    partitions: () => days.map((day) => ({ key: day, day })),
    fetch: async (_context, partition, cursor) => {
      await Promise.resolve();
      return fetch(partition.day, cursor) as {
        records: { day: string; n: number }[];
        next: unknown;
      };
    },
    outputs: [
      {
        target: {
          table: "sales.trend_totals",
          key: ["day", "selection_type"],
          columns: ["stream_count", "raw"],
        },
        mode: "upsert",
        rows: (record) => [
          { day: record.day, selection_type: "dsp", stream_count: record.n, raw: record },
        ],
      },
    ],
  });
}

function deps(maxConcurrency = 4) {
  return {
    db: warehouse.db,
    api: {} as ApiClient,
    logger: createLogger({ level: "silent", secrets: [] }),
    config: etlConfigSchema.parse({ start_date: "2026-01-01", max_concurrency: maxConcurrency }),
    today: "2026-02-01",
  };
}

describe("the runner", () => {
  it("records a failed partition with its error, and the other partitions go on", async () => {
    const stream = testStream("failing", ["2026-01-01", "2026-01-02", "2026-01-03"], (day) => {
      if (day === "2026-01-02") throw new UpstreamStatusError(request, 500, "boom", null);
      return { records: [{ day, n: 1 }], next: null };
    });
    const [summary] = await runSync(deps(), [stream], { from: "2026-01-01", to: "2026-01-03" });
    expect(summary?.partitions).toBe(3);
    expect(summary?.failed.map((f) => f.partition)).toEqual(["2026-01-02"]);
    const runs = await warehouse.query<{ partition: string; status: string; error: string | null }>(
      "select partition, status, error from etl.sync_runs where stream = 'failing' order by partition",
    );
    expect(runs.map((r) => [r.partition, r.status])).toEqual([
      ["2026-01-01", "succeeded"],
      ["2026-01-02", "failed"],
      ["2026-01-03", "succeeded"],
    ]);
    expect(runs[1]?.error).toContain("HTTP 500: boom");
    const state = await warehouse.query<{ partition: string; last_status: string }>(
      "select partition, last_status from etl.stream_state where stream = 'failing' order by partition",
    );
    expect(state.map((s) => s.last_status)).toEqual(["succeeded", "failed", "succeeded"]);
    const days = await warehouse.query<{ day: string }>(
      "select day::text from sales.trend_totals where selection_type = 'dsp' order by day",
    );
    expect(days.map((d) => d.day)).toEqual(["2026-01-01", "2026-01-03"]);
  });

  it("stops the whole run at the first refused credential", async () => {
    const attempted: string[] = [];
    const stream = testStream("refused", ["2026-01-04", "2026-01-05", "2026-01-06"], (day) => {
      attempted.push(day);
      throw new AuthError(request, "Invalid token");
    });
    await expect(
      runSync(deps(1), [stream], { from: "2026-01-04", to: "2026-01-06" }),
    ).rejects.toBeInstanceOf(AuthError);
    expect(attempted).toEqual(["2026-01-04"]);
  });

  it("fails a partition whose upstream returns the same page forever, instead of looping", async () => {
    const stream = testStream("ignores-offset", ["2026-01-07"], (day, cursor) => ({
      records: [{ day, n: 1 }],
      next: ((cursor as number | null) ?? 0) + 1,
    }));
    const [summary] = await runSync(deps(), [stream], { from: "2026-01-07", to: "2026-01-07" });
    expect(summary?.failed[0]?.error).toBeInstanceOf(Error);
    expect(String(summary?.failed[0]?.error)).toContain("same page again");
  });

  it("keeps the rows of a partition's earlier pages consistent when a later page fails", async () => {
    const stream = testStream("second-page-fails", ["2026-01-08"], (day, cursor) => {
      if (cursor === 1) throw new UpstreamStatusError(request, 503, "unavailable", null);
      return { records: [{ day, n: 5 }], next: 1 };
    });
    const [summary] = await runSync(deps(), [stream], { from: "2026-01-08", to: "2026-01-08" });
    expect(summary?.failed).toHaveLength(1);
    const [state] = await warehouse.query<{ last_status: string; checkpoint: unknown }>(
      "select last_status, checkpoint from etl.stream_state where stream = 'second-page-fails'",
    );
    // Not checkpointed: the next run syncs the partition again from its first page.
    expect(state).toEqual({ last_status: "failed", checkpoint: {} });
  });
});
