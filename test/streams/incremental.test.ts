import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SALE_TYPES, SELECTION_TYPES } from "../../src/api/enums.js";
import { type SyncHarness, startSyncHarness } from "../helpers/sync-harness.js";

/** Every stored row's identity and row version: a row rewritten gets a new xmin. */
async function rowVersions(harness: SyncHarness): Promise<Map<string, string>> {
  const rows = await harness.warehouse.query<{ id: string; xmin: string }>(`
    select 'totals|' || day || '|' || selection_type as id, xmin::text from sales.trend_totals
    union all
    select 'items|' || day || '|' || selection_type || '|' || sale_type || '|' || item_id, xmin::text
      from sales.trend_items
    union all
    select 'chart|' || day || '|' || selection_type || '|' || sale_type || '|' || series_position, xmin::text
      from sales.trend_chart_points`);
  return new Map(rows.map((r) => [r.id, r.xmin]));
}

const WINDOW = ["2026-01-08", "2026-01-09", "2026-01-10"];

/** What the sandbox serves for the days, keyed like rowVersions, valued by the stored fields. */
function served(harness: SyncHarness, days: readonly string[]): Map<string, string> {
  const data = harness.upstream.sandbox.data;
  const entries: [string, string][] = [];
  for (const day of days) {
    for (const selection of SELECTION_TYPES) {
      entries.push([
        `totals|${day}|${selection}`,
        JSON.stringify(data.trendTotals(day, day, selection)),
      ]);
      for (const sale of SALE_TYPES) {
        for (const item of data.trendList(day, day, selection, sale)) {
          entries.push([`items|${day}|${selection}|${sale}|${item.id}`, JSON.stringify(item)]);
        }
        for (const [position, series] of data
          .trendChart(day, day, selection, sale)
          .data.entries()) {
          entries.push([`chart|${day}|${selection}|${sale}|${position}`, JSON.stringify(series)]);
        }
      }
    }
  }
  return new Map(entries);
}

function changed(before: Map<string, string>, after: Map<string, string>): string[] {
  const ids = new Set([...before.keys(), ...after.keys()]);
  return [...ids].filter((id) => before.get(id) !== after.get(id)).sort();
}

// start_date 2026-01-01, today 2026-01-11: days 01-01..01-10; lookback 3 = 01-08..01-10.
const TODAY = "2026-01-11";
let harness: SyncHarness;

beforeAll(async () => {
  harness = await startSyncHarness("incremental", {
    today: TODAY,
    // Each sync here stands for a daily run: the lookback days are due again every time.
    etl: {
      lookback_days: 3,
      lookback: { trends: { refetch_after_hours: 0 } },
      start_date: "2026-01-01",
    },
  });
});

afterAll(() => harness.close());

describe("incremental sync of the trends streams", () => {
  it("first syncs every day from start_date to yesterday", async () => {
    const summaries = await harness.sync({ only: ["trends"] });
    expect(summaries.map((s) => [s.stream, s.partitions, s.failed.length])).toEqual([
      ["trend_totals", 10 * 5, 0],
      ["trend_items", 10 * 10, 0],
      ["trend_chart_points", 10 * 10, 0],
    ]);
    const [row] = await harness.warehouse.query<{ days: string }>(
      "select count(distinct day)::text as days from sales.trend_items",
    );
    expect(row?.days).toBe("10");
  });

  it("then re-syncs only the lookback window, and with no upstream change writes nothing", async () => {
    const before = await rowVersions(harness);
    const summaries = await harness.sync({ only: ["trends"] });
    expect(summaries.map((s) => s.partitions)).toEqual([3 * 5, 3 * 10, 3 * 10]);
    expect(summaries.reduce((n, s) => n + s.rowsWritten, 0)).toBe(0);
    expect(changed(before, await rowVersions(harness))).toEqual([]);
    const [row] = await harness.warehouse.query<{ runs: string }>(
      "select count(*)::text as runs from etl.attempts where partition < '2026-01-08'",
    );
    // Days before the window were attempted once, by the first sync only.
    expect(row?.runs).toBe(String(7 * 25));
  });

  it("picks up late data in the window: exactly the rows whose upstream values changed", async () => {
    const data = harness.upstream.sandbox.data;
    const day = "2026-01-09";
    const [first, second] = data.trendItems(day, "asset", "stream");
    if (!first || !second) throw new Error("sandbox day too small");
    const before = await rowVersions(harness);
    const servedBefore = served(harness, WINDOW);
    data.setTrendCount(day, "asset", "stream", first.id, first.count + 1000);
    data.setTrendCount(day, "asset", "stream", second.id, 0);
    const servedAfter = served(harness, WINDOW);

    await harness.sync({ only: ["trends"] });

    const rows = await harness.warehouse.query<{ item_id: string; count: string }>(
      "select item_id, count from sales.trend_items where day = $1 and selection_type = 'asset' and sale_type = 'stream'",
      [day],
    );
    const stored = new Map(rows.map((r) => [r.item_id, r.count]));
    expect(stored.get(String(first.id))).toBe(String(first.count + 1000));
    expect(stored.has(String(second.id))).toBe(false);
    // The changed item, the dropped one, every other item whose share moved, the totals and
    // chart series whose figures moved (the next day's totals compare against this one): no more.
    const expected = changed(servedBefore, servedAfter);
    expect(expected).toContain(`items|${day}|asset|stream|${first.id}`);
    expect(changed(before, await rowVersions(harness))).toEqual(expected);
  });

  it("leaves late data before the window to an explicit --from/--to", async () => {
    const data = harness.upstream.sandbox.data;
    const day = "2026-01-02";
    const [item] = data.trendItems(day, "dsp", "download");
    if (!item) throw new Error("sandbox day too small");
    data.setTrendCount(day, "dsp", "download", item.id, item.count + 7);
    const query = () =>
      harness.warehouse.query<{ count: string }>(
        "select count from sales.trend_items where day = $1 and selection_type = 'dsp' and sale_type = 'download' and item_id = $2",
        [day, String(item.id)],
      );

    await harness.sync({ only: ["trend_items"] });
    expect((await query())[0]?.count).toBe(String(item.count));

    await harness.sync({ only: ["trend_items"], from: day, to: day });
    expect((await query())[0]?.count).toBe(String(item.count + 7));
  });
});
