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

/** The statements the process sends to Postgres while `run` runs, whole. */
async function statementsOf(run: () => Promise<unknown>): Promise<string[]> {
  const sent: string[] = [];
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const first = args[0] as string | { text?: string };
    sent.push((typeof first === "string" ? first : (first.text ?? "")).trim());
    return (query as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof query;
  try {
    await run();
  } finally {
    pg.Client.prototype.query = query;
  }
  return sent;
}

/**
 * A sync's statements without the settling of the analytics roles after its partitions (its
 * reads, then its one transaction, then its look for days to roll up: these partitions write no
 * list items; test/analytics has its own tests).
 */
function partitionsOnly(statements: readonly string[]): string[] {
  const start = statements.findIndex((s) => s.startsWith("select a.attname as column"));
  if (start < 0) return [...statements];
  const end = statements.findIndex((s, i) => i > start && s.startsWith("commit"));
  return [...statements.slice(0, start), ...statements.slice(end + 1)].filter(
    (s) => !s.startsWith("select selection_type as selection"),
  );
}

/** A statement's first three words: enough to tell which it is. */
function opening(statement: string): string {
  return statement.split(/\s+/).slice(0, 3).join(" ");
}

const releases = (statements: readonly string[]) =>
  statements.filter((s) => s.includes("delete from etl.rejected_records"));

describe("the statements of one partition", () => {
  it("are the attempt's row and one transaction of four statements, with no quarantine release the first time", async () => {
    const first = partitionsOnly(
      await statementsOf(() => harness.sync({ only: ["trend_chart_points"], ...DAY })),
    );
    const perPartition = first.filter((s) => s.startsWith("begin")).length;
    // 10 partitions: 5 selection types × 2 sale types, one page each.
    expect(perPartition).toBe(10);
    expect(first.filter((s) => s.includes("rejected_records"))).toEqual([]);
    // Six round trips each: the attempt's row, then begin, the responses, the rows, one statement
    // that deletes the rows no longer served, records the partition's state, ends the attempt
    // and reads the table's discovered columns (another worker may have added one since), then
    // commit. Once per process, the page sizes learned, the table's column types (what its
    // columns can hold) and its discovered columns; once per sync, the streams' settings, the
    // run's start, and its end with the check of the trends days it changed (the roles settled
    // before it are left out here).
    const counts: Record<string, number> = {};
    for (const statement of first.map(opening)) counts[statement] = (counts[statement] ?? 0) + 1;
    expect(counts).toEqual({
      'insert into "etl"."stream_settings"': 1,
      "insert into etl.runs": 1,
      "with ended as": 1,
      'select "operation", "cap",': 1,
      "select column_name, udt_name,": 1,
      "select column_name, field,": 1,
      "with earlier as": 10,
      begin: 10,
      'insert into "etl"."responses"': 10,
      'insert into "sales"."trend_chart_points"': 10,
      'with "deleted_0" as': 10,
      commit: 10,
    });

    const again = partitionsOnly(
      await statementsOf(() => harness.sync({ only: ["trend_chart_points"], ...DAY })),
    );
    expect(again.filter((s) => s.startsWith("select column_name"))).toEqual([]);
    // Once it has run, records it quarantined then may now be storable: the statement closing
    // each partition releases them, with no round trip of its own.
    const closing = again.filter((s) => opening(s) === 'with "deleted_0" as');
    expect(closing).toHaveLength(10);
    expect(releases(closing)).toHaveLength(10);
    expect(releases(again)).toHaveLength(10);
    expect(again.filter((s) => s.startsWith("begin"))).toHaveLength(10);
  });

  it("counts the rows the closing statement deleted as written, in the outcome and the audit", async () => {
    await harness.sync({ only: ["trend_chart_points"], ...DAY });
    // A row the upstream no longer serves, in the scope of one of the day's partitions.
    await harness.warehouse.query(
      `insert into sales.trend_chart_points (day, selection_type, sale_type, series_position, series, total, raw)
       select day, selection_type, sale_type, 999, 'gone', 1, '{}' from sales.trend_chart_points
        where day = $1 limit 1`,
      [DAY.from],
    );
    const [summary] = await harness.sync({ only: ["trend_chart_points"], ...DAY });
    expect(summary?.rowsWritten).toBe(1);
    const [left] = await harness.warehouse.query<{ n: number; audited: number }>(
      `select (select count(*)::int from sales.trend_chart_points where series_position = 999) as n,
              (select sum(rows_written)::int from (select rows_written from etl.attempts
                 order by started_at desc limit 10) as last_sync) as audited`,
    );
    expect(left).toEqual({ n: 0, audited: 1 });
  });
});
