import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type SyncHarness, startSyncHarness } from "../helpers/sync-harness.js";

const TODAY = "2026-01-31";
const DAY = { from: "2026-01-20", to: "2026-01-20" };
let harness: SyncHarness;

beforeAll(async () => {
  harness = await startSyncHarness("partition_statements", { today: TODAY });
});

afterAll(() => harness.close());

/** The statements the process sends to Postgres while `run` runs, by their first words. */
async function statementsOf(run: () => Promise<unknown>): Promise<string[]> {
  const sent: string[] = [];
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const first = args[0] as string | { text?: string };
    const text = typeof first === "string" ? first : (first.text ?? "");
    sent.push(text.trim().split(/\s+/).slice(0, 3).join(" "));
    return (query as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof query;
  try {
    await run();
  } finally {
    pg.Client.prototype.query = query;
  }
  return sent;
}

describe("the statements of one partition", () => {
  it("are the attempt's row, one transaction of writes, and no quarantine release the first time", async () => {
    const first = await statementsOf(() => harness.sync({ only: ["trend_chart_points"], ...DAY }));
    const perPartition = first.filter((s) => s.startsWith("begin")).length;
    // 10 partitions: 5 selection types × 2 sale types, one page each.
    expect(perPartition).toBe(10);
    expect(first.filter((s) => s.includes('"rejected_records"'))).toEqual([]);

    const again = await statementsOf(() => harness.sync({ only: ["trend_chart_points"], ...DAY }));
    // Once it has run, records it quarantined then may now be storable: the release is sent.
    expect(again.filter((s) => s.startsWith('delete from "etl"."rejected_records"'))).toHaveLength(
      10,
    );
  });
});
