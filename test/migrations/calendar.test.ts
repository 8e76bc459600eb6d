import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SyncHarness } from "../helpers/sync-harness.js";
import { startFilledWarehouse } from "./filled-warehouse.js";

let harness: SyncHarness;
const query = <T extends object>(text: string, values?: unknown[]) =>
  harness.warehouse.query<T>(text, values);

beforeAll(async () => {
  harness = await startFilledWarehouse("bi_calendar");
});

afterAll(() => harness?.close());

interface CalendarRow {
  day: string;
  year: number;
  quarter: number;
  quarter_label: string;
  month: number;
  month_start: string;
  month_label: string;
  iso_year: number;
  iso_week: number;
  iso_week_label: string;
  week_start: string;
  iso_day_of_week: number;
  is_weekend: boolean;
}

const DAY_MS = 86_400_000;
const text = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** ISO 8601 computed here, not in SQL: the week's Thursday decides its year. */
function expected(day: string): CalendarRow {
  const ms = Date.parse(`${day}T00:00:00Z`);
  const date = new Date(ms);
  const dow = ((date.getUTCDay() + 6) % 7) + 1;
  const monday = ms - (dow - 1) * DAY_MS;
  const thursday = new Date(monday + 3 * DAY_MS);
  const isoYear = thursday.getUTCFullYear();
  const isoWeek = Math.floor((thursday.getTime() - Date.UTC(isoYear, 0, 1)) / DAY_MS / 7) + 1;
  const year = date.getUTCFullYear();
  const month = date.getUTCMonth() + 1;
  const quarter = Math.ceil(month / 3);
  return {
    day,
    year,
    quarter,
    quarter_label: `${year}-Q${quarter}`,
    month,
    month_start: text(Date.UTC(year, month - 1, 1)),
    month_label: day.slice(0, 7),
    iso_year: isoYear,
    iso_week: isoWeek,
    iso_week_label: `${isoYear}-W${String(isoWeek).padStart(2, "0")}`,
    week_start: text(monday),
    iso_day_of_week: dow,
    is_weekend: dow >= 6,
  };
}

describe("analytics.calendar", () => {
  it("gives each day its ISO week, month, quarter and year, around New Year and leap days too", async () => {
    const days = [
      ...Array.from({ length: 21 }, (_, i) => text(Date.UTC(2020, 11, 22) + i * DAY_MS)),
      ...Array.from({ length: 120 }, (_, i) => text(Date.UTC(1970, 0, 1) + i * 701 * DAY_MS)),
      "2024-02-29",
      "2026-01-01",
      "2026-12-28",
      "2027-01-01",
      "2027-01-03",
      "2027-01-04",
      "2199-12-31",
    ];
    const rows = await query<CalendarRow>(
      `select day::text, year, quarter, quarter_label, month, month_start::text, month_label,
              iso_year, iso_week, iso_week_label, week_start::text, iso_day_of_week, is_weekend
         from analytics.calendar where day = any($1::date[]) order by day`,
      [days],
    );
    expect(rows).toEqual([...new Set(days)].sort().map(expected));
    expect(rows.find((r) => r.day === "2027-01-01")?.iso_week_label).toBe("2026-W53");
    expect(rows.find((r) => r.day === "2026-01-01")?.iso_week_label).toBe("2026-W01");
  });

  it("holds every day of its range once, and sales days must be in it (a foreign key)", async () => {
    const [range] = await query<{ first: string; last: string; days: number }>(
      "select min(day)::text as first, max(day)::text as last, count(*)::int as days from analytics.calendar",
    );
    expect(range).toEqual({
      first: "1970-01-01",
      last: "2199-12-31",
      days: (Date.UTC(2199, 11, 31) - Date.UTC(1970, 0, 1)) / DAY_MS + 1,
    });
    await expect(
      query(
        "insert into sales.trend_totals (day, selection_type, raw) values ('1969-12-31', 'dsp', '{}')",
      ),
    ).rejects.toMatchObject({ code: "23503" });
  });
});

describe("analytics.join_paths", () => {
  it("lists the foreign keys BI tools pick up and the joins no key can hold", async () => {
    const enforced = await query<{ path: string }>(
      `select from_table || '.' || from_columns || ' -> ' || to_table || '.' || to_columns as path
         from analytics.join_paths where enforced order by 1`,
    );
    expect(enforced.map((row) => row.path)).toEqual([
      "royalties.payout_status_history.payout_id -> royalties.payouts.payout_id",
      "sales.trend_chart_points.day -> analytics.calendar.day",
      "sales.trend_items.day -> analytics.calendar.day",
      "sales.trend_totals.day -> analytics.calendar.day",
    ]);
  });

  it("names columns that exist, and each documented join finds rows on a filled warehouse", async () => {
    const paths = await query<{
      from_table: string;
      from_columns: string;
      to_table: string;
      to_columns: string;
    }>(
      "select from_table, from_columns, to_table, to_columns from analytics.join_paths where not enforced",
    );
    expect(paths.length).toBeGreaterThan(10);
    const empty: string[] = [];
    for (const path of paths) {
      // A plain column is qualified; an expression names columns of the fact table alone.
      const from = /^\w+$/.test(path.from_columns) ? `f.${path.from_columns}` : path.from_columns;
      const [row] = await query<{ facts: number; matched: number }>(
        `select count(*)::int as facts, count(t.*)::int as matched
           from ${path.from_table} f
           left join ${path.to_table} t on t.${path.to_columns}::text = (${from})::text`,
      );
      if ((row?.facts ?? 0) > 0 && row?.matched === 0) {
        empty.push(`${path.from_table}.${path.from_columns} -> ${path.to_table}`);
      }
    }
    expect(empty).toEqual([]);
  });
});

describe("the calendar's views", () => {
  it("sum to the daily facts they group: weekly sales and monthly sales by DSP", async () => {
    const [facts] = await query<{ streams: string; downloads: string }>(
      `select sum(count) filter (where sale_type = 'stream')::text as streams,
              sum(count) filter (where sale_type = 'download')::text as downloads
         from sales.trend_items where selection_type = 'dsp'`,
    );
    expect(Number(facts?.streams)).toBeGreaterThan(0);
    for (const view of ["analytics.weekly_sales", "analytics.monthly_sales_by_dsp"]) {
      const [sums] = await query<{ streams: string; downloads: string }>(
        `select sum(streams)::text as streams, sum(downloads)::text as downloads from ${view}`,
      );
      expect(sums, view).toEqual(facts);
    }
    const weeks = await query<{ iso_week_label: string; days_reported: number }>(
      "select iso_week_label, days_reported from analytics.weekly_sales order by week_start",
    );
    // The filled warehouse holds 2026-01-01..04: Thursday to Sunday of ISO week 2026-W01.
    expect(weeks).toEqual([{ iso_week_label: "2026-W01", days_reported: 4 }]);
  });
});
