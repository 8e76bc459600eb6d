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
  it("are the attempt's row and one transaction of five writes, with no quarantine release the first time", async () => {
    const first = await statementsOf(() => harness.sync({ only: ["trend_chart_points"], ...DAY }));
    const perPartition = first.filter((s) => s.startsWith("begin")).length;
    // 10 partitions: 5 selection types × 2 sale types, one page each.
    expect(perPartition).toBe(10);
    expect(first.filter((s) => s.includes('"rejected_records"'))).toEqual([]);
    // Seven round trips each: the attempt's row, then begin, the responses, the rows, the rows no
    // longer served, the partition's state with the attempt's end (one statement), commit.
    const counts: Record<string, number> = {};
    for (const statement of first) counts[statement] = (counts[statement] ?? 0) + 1;
    expect(counts).toEqual({
      'select "operation", "cap",': 1,
      'with "earlier" as': 10,
      begin: 10,
      'insert into "etl"."responses"': 10,
      'insert into "sales"."trend_chart_points"': 10,
      'delete from "sales"."trend_chart_points"': 10,
      'with "state" as': 10,
      commit: 10,
    });

    const again = await statementsOf(() => harness.sync({ only: ["trend_chart_points"], ...DAY }));
    // Once it has run, records it quarantined then may now be storable: the release is sent.
    expect(again.filter((s) => s.startsWith('delete from "etl"."rejected_records"'))).toHaveLength(
      10,
    );
  });
});
