import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SALE_TYPES, SELECTION_TYPES } from "../../src/api/enums.js";
import { daysBetween } from "../../src/time/calendar.js";
import { type SyncHarness, startSyncHarness } from "../helpers/sync-harness.js";

const FROM = "2026-01-03";
const TO = "2026-01-05";
let harness: SyncHarness;

beforeAll(async () => {
  harness = await startSyncHarness("trends", { today: "2026-01-31" });
  await harness.sync({ only: ["trends"], from: FROM, to: TO });
});

afterAll(() => harness.close());

describe("trends streams", () => {
  it("stores every day's totals for each selection type", async () => {
    const rows = await harness.warehouse.query<Record<string, string>>(
      "select day::text, selection_type, stream_count, download_count, stream_percentage, download_percentage from sales.trend_totals order by 1, 2",
    );
    const expected = daysBetween(FROM, TO).flatMap((day) =>
      [...SELECTION_TYPES].sort().map((selection) => {
        const t = harness.upstream.sandbox.data.trendTotals(day, day, selection);
        return {
          day,
          selection_type: selection,
          stream_count: String(t.stream_count),
          download_count: String(t.download_count),
          stream_percentage: String(t.stream_percentage),
          download_percentage: String(t.download_percentage),
        };
      }),
    );
    expect(
      rows.map((r) => ({
        ...r,
        stream_percentage: String(Number(r.stream_percentage)),
        download_percentage: String(Number(r.download_percentage)),
      })),
    ).toEqual(expected);
  });

  it("stores every item of every day's list, exactly", async () => {
    for (const day of daysBetween(FROM, TO)) {
      for (const selection of SELECTION_TYPES) {
        for (const sale of SALE_TYPES) {
          const stored = await harness.warehouse.query<{
            item_id: string;
            count: string;
            name: string;
          }>(
            `select item_id, count, name from sales.trend_items
             where day = $1 and selection_type = $2 and sale_type = $3 order by item_id`,
            [day, selection, sale],
          );
          const expected = harness.upstream.sandbox.data
            .trendList(day, day, selection, sale)
            .map((i) => ({ item_id: String(i.id), count: String(i.count), name: i.name }))
            .sort((a, b) => (a.item_id < b.item_id ? -1 : a.item_id > b.item_id ? 1 : 0));
          expect(stored, `${day} ${selection} ${sale}`).toEqual(expected);
        }
      }
    }
  });

  it("maps chart series to days", async () => {
    const day = "2026-01-04";
    const stored = await harness.warehouse.query<{ series: string; total: string }>(
      "select series, total from sales.trend_chart_points where day = $1 and selection_type = 'territory' and sale_type = 'stream' order by series",
      [day],
    );
    const chart = harness.upstream.sandbox.data.trendChart(day, day, "territory", "stream");
    expect(stored).toEqual(
      chart.data
        .map((s) => ({ series: s.name, total: String(s.totals[0]) }))
        .sort((a, b) => (a.series < b.series ? -1 : 1)),
    );
  });
});
