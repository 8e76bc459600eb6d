import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SALE_TYPES, SELECTION_TYPES } from "../../src/api/enums.js";
import { type SyncHarness, failures, startSyncHarness } from "../helpers/sync-harness.js";

// A month of trends and the incomes, synced; then the upstream restates (revision 1: late sales
// on the 3 days before today, some incomes), cuts a day's list short, and mends it again.
const TODAY = "2026-01-06";
const MONTH = { from: "2025-12-01", to: "2025-12-31" };
const RECENT = { from: "2026-01-01", to: "2026-01-05" };
const ONLY = ["trend_totals", "trend_items", "trend_chart_points", "incomes"];
const KEPT = [
  "sales.trend_totals",
  "sales.trend_items",
  "sales.trend_chart_points",
  "royalties.incomes",
] as const;

let harness: SyncHarness;

beforeAll(async () => {
  harness = await startSyncHarness("history", {
    today: TODAY,
    sandbox: {
      size: { startDate: MONTH.from, days: 36, trendItemsCap: 12, incomes: 40 },
    },
    etl: { start_date: MONTH.from, lookback: { trends: { refetch_after_hours: 0 } } },
  });
});

afterAll(async () => {
  await harness?.close();
});

async function sync(range: { from: string; to: string }) {
  const summaries = await harness.sync({ ...range, only: ONLY });
  expect(failures(summaries)).toEqual([]);
  return summaries;
}

async function one<T extends object>(text: string, values: unknown[] = []): Promise<T> {
  const [row] = await harness.warehouse.query<T>(text, values);
  if (!row) throw new Error(`no row: ${text}`);
  return row;
}

const versions = async () =>
  (await one<{ n: number }>("select count(*)::int as n from history.row_versions")).n;

/** A kept table's typed values, key by key, as JSON (raw and synced_at left out). */
async function typedValues(source: string, at?: string): Promise<Map<string, string>> {
  const from = at === undefined ? `${source} t` : `history.as_of(null::${source}, $1) t`;
  const rows = await harness.warehouse.query<{ v: string }>(
    `select (to_jsonb(t) - 'raw' - 'synced_at')::text as v from ${from}`,
    at === undefined ? [] : [at],
  );
  return new Map(rows.map((row) => [row.v, row.v]));
}

const now = async () => (await one<{ t: string }>("select clock_timestamp()::text as t")).t;

describe("the history of restated values", () => {
  let tables: Map<string, Map<string, string>>;
  let beforeRestatement: string;

  it("a consistent month is synced: no history, and no reading disagrees", async () => {
    await sync(MONTH);
    await sync(RECENT);
    expect(await versions()).toBe(0);
    const checked = await one<{ days: number; readings: number; disagree: number }>(
      `select count(distinct day)::int as days, count(*)::int as readings,
              count(*) filter (where not agree)::int as disagree
         from etl.reading_checks where day between $1 and $2`,
      [MONTH.from, MONTH.to],
    );
    // Every day of December, each selection type (5) and sale type (2), checked and agreeing.
    expect(checked).toEqual({ days: 31, readings: 310, disagree: 0 });
    const whole = await one<{ n: number }>(
      `select count(*)::int as n from etl.reading_checks
        where total is not null and items_sum is not null and chart_total is not null`,
    );
    expect(whole.n).toBe(360);
    tables = new Map();
    for (const table of KEPT) tables.set(table, await typedValues(table));
    beforeRestatement = await now();
  });

  it("a re-sync with nothing restated keeps no history, nor does a replay", async () => {
    await sync(RECENT);
    expect(await versions()).toBe(0);
    await harness.replay(undefined, RECENT);
    expect(await versions()).toBe(0);
  });

  it("a restatement keeps the old values, with when they were held and which run saw the change", async () => {
    harness.upstream.sandbox.setKnobs({ shapes: { revision: 1 } });
    const changes = harness.upstream.sandbox.data.revisionChanges();
    await sync(RECENT);
    const afterRestatement = await now();

    // The late days' totals: each change is the new value less the old, as the tables held them.
    const totals = await harness.warehouse.query<{ day: string; old: string; new: string }>(
      `select v.key ->> 'day' as day, sum((v.old_value)::text::numeric)::text as old,
              sum((v.new_value)::text::numeric)::text as new
         from history.value_changes v
        where v.table_name = 'sales.trend_totals' and v.column_name = 'stream_count'
        group by 1 order by 1`,
    );
    expect(totals.map((t) => t.day)).toEqual(changes.trendDays);
    for (const { old, new: restated } of totals)
      expect(BigInt(restated)).toBeGreaterThan(BigInt(old));

    const incomes = await harness.warehouse.query<{ key: string }>(
      `select distinct v.key ->> 'income_key' as key from history.value_changes v
        where v.table_name = 'royalties.incomes'`,
    );
    expect(incomes.length).toBe(changes.restatedIncomeIds.length);

    // Every version names the attempt that saw it, of the stream that writes its table, and its run.
    const unnamed = await one<{ n: number }>(
      `select count(*)::int as n from history.row_versions v
         left join etl.attempts r on r.attempt_id = v.attempt_id
        where r.run is null
           or r.stream <> case v.table_name when 'royalties.incomes' then 'incomes'
                               else split_part(v.table_name, '.', 2) end
           or v.valid_from >= v.seen_at`,
    );
    expect(unnamed.n).toBe(0);

    // A version's new values are the columns that changed and only those.
    const unchanged = await one<{ n: number }>(
      `select count(*)::int as n from history.value_changes
        where old_value is not distinct from new_value`,
    );
    expect(unchanged.n).toBe(0);

    // As of before the restatement: exactly what the tables held then; as of now: what they hold.
    for (const table of KEPT) {
      expect(await typedValues(table, beforeRestatement), table).toEqual(tables.get(table));
      expect(await typedValues(table, afterRestatement), table).toEqual(await typedValues(table));
    }
    const restated = await one<{ rows: number; net: string }>(
      `select sum(rows_changed)::int as rows, sum(net_change)::text as net
         from history.restatements where table_name = 'sales.trend_totals'`,
    );
    expect(restated.rows).toBeGreaterThan(0);
    expect(Number(restated.net)).toBeGreaterThan(0);
  });

  it("once restated, a re-sync and a replay add no history", async () => {
    const before = await versions();
    await sync(RECENT);
    await harness.replay(undefined, RECENT);
    expect(await versions()).toBe(before);
  });

  it("a replay that derives other rows than the tables hold restates and removes nothing in history", async () => {
    const before = await versions();
    const held = await typedValues("sales.trend_totals");
    // As an older reader would have left them: a value read otherwise, a row read from nothing.
    await harness.warehouse.query(
      `update sales.trend_totals set stream_count = stream_count + 1, synced_at = now()
        where day = '2026-01-03' and selection_type = 'dsp'`,
    );
    await harness.warehouse.query(
      `insert into sales.trend_items (day, selection_type, sale_type, item_id, raw)
       values ('2026-01-03', 'dsp', 'stream', 'never-listed', '{}')`,
    );
    // The hand-made changes are versions of their own: the update moved synced_at.
    const tampered = await versions();
    expect(tampered).toBe(before + 1);
    await harness.replay(undefined, RECENT);
    expect(await typedValues("sales.trend_totals")).toEqual(held);
    const stray = await one<{ n: number }>(
      "select count(*)::int as n from sales.trend_items where item_id = 'never-listed'",
    );
    expect(stray.n).toBe(0);
    expect(await versions()).toBe(tampered);
  });

  it("a list cut short is flagged by the check, its missing item kept as removed, and cleared once whole", async () => {
    const day = "2026-01-02";
    const before = await versions();
    harness.upstream.sandbox.setKnobs({ shortListDays: [day] });
    await sync({ from: day, to: day });
    const flagged = await harness.warehouse.query<{
      selection_type: string;
      sale_type: string;
      items_gap: string;
      chart_gap: string;
    }>(
      `select selection_type, sale_type, items_gap::text, chart_gap::text
         from analytics.reading_checks where not agree order by 1, 2`,
    );
    const data = harness.upstream.sandbox.data;
    const expected = [...SELECTION_TYPES].sort().flatMap((selection) =>
      [...SALE_TYPES].sort().flatMap((sale) => {
        const list = data.trendList(day, day, selection, sale);
        const last = list[list.length - 1];
        return last
          ? [
              {
                selection_type: selection,
                sale_type: sale,
                items_gap: `-${last.count}`,
                chart_gap: "0",
              },
            ]
          : [];
      }),
    );
    expect(flagged).toEqual(expected);
    const removed = await one<{ n: number }>(
      `select count(*)::int as n from history.row_versions
        where table_name = 'sales.trend_items' and new_values is null and key ->> 'day' = $1`,
      [day],
    );
    expect(removed.n).toBe(expected.length);
    expect(await versions()).toBe(before + expected.length);

    harness.upstream.sandbox.setKnobs({ shortListDays: [] });
    await sync({ from: day, to: day });
    const left = await one<{ n: number }>(
      "select count(*)::int as n from analytics.reading_checks where not agree",
    );
    expect(left.n).toBe(0);
  });

  it("a stream whose history is switched off keeps none", async () => {
    const before = await versions();
    harness.upstream.sandbox.setKnobs({ shapes: { revision: 2 } });
    await harness.sync({
      ...RECENT,
      only: ["trend_totals"],
      settings: { history: { trends: false } },
    });
    const restated = await one<{ n: number }>(
      `select count(*)::int as n from etl.attempts
        where stream = 'trend_totals' and rows_written > 0
          and started_at > (select max(seen_at) from history.row_versions)`,
    );
    expect(restated.n).toBeGreaterThan(0);
    expect(await versions()).toBe(before);
  });
});
