import { sql } from "kysely";
import type { Warehouse } from "./database.js";

/** The readings of one selection and sale type that disagree, as last checked. */
export interface DisagreementCount {
  readonly selectionType: string;
  readonly saleType: string;
  /** Days whose readings disagree. */
  readonly days: number;
}

/** How many days disagree, per selection and sale type (analytics.reading_checks). */
export async function disagreementCounts(db: Warehouse): Promise<DisagreementCount[]> {
  const { rows } = await sql<{ selection_type: string; sale_type: string; days: number }>`
    select selection_type, sale_type, count(*)::integer as days
      from etl.reading_checks where not agree
     group by 1, 2 order by 1, 2`.execute(db);
  return rows.map((row) => ({
    selectionType: row.selection_type,
    saleType: row.sale_type,
    days: row.days,
  }));
}

/** One disagreement, and how many there are. */
export interface DisagreementSummary {
  readonly readings: number;
  readonly firstDay: string;
  readonly lastDay: string;
  /** The one with the largest gap, of the list or the chart, from the day's total. */
  readonly largest: {
    readonly day: string;
    readonly selectionType: string;
    readonly saleType: string;
    readonly itemsGap: string | null;
    readonly chartGap: string | null;
  };
}

/** The disagreements as last checked, or null when every reading held agrees. */
export async function disagreementSummary(db: Warehouse): Promise<DisagreementSummary | null> {
  const { rows } = await sql<{
    readings: number;
    first_day: string;
    last_day: string;
    day: string;
    selection_type: string;
    sale_type: string;
    items_gap: string | null;
    chart_gap: string | null;
  }>`
    select count(*) over ()::integer as readings,
           (min(day) over ())::text as first_day, (max(day) over ())::text as last_day,
           day::text, selection_type, sale_type, items_gap::text, chart_gap::text
      from analytics.reading_checks
     where not agree
     order by greatest(abs(coalesce(items_gap, 0)), abs(coalesce(chart_gap, 0))) desc, day desc
     limit 1`.execute(db);
  const row = rows[0];
  if (!row) return null;
  return {
    readings: row.readings,
    firstDay: row.first_day,
    lastDay: row.last_day,
    largest: {
      day: row.day,
      selectionType: row.selection_type,
      saleType: row.sale_type,
      itemsGap: row.items_gap,
      chartGap: row.chart_gap,
    },
  };
}

/** The checks that lack a reading, as last checked: how many, over which days, and one's reason. */
export async function incompleteSummary(db: Warehouse): Promise<{
  readonly checks: number;
  readonly firstDay: string;
  readonly lastDay: string;
  readonly example: string;
} | null> {
  const { rows } = await sql<{
    checks: number;
    first_day: string;
    last_day: string;
    example: string;
  }>`
    select count(*) over ()::integer as checks,
           (min(day) over ())::text as first_day, (max(day) over ())::text as last_day,
           day::text || ' ' || selection_type || ' ' || sale_type || ': ' || missing as example
      from etl.reading_checks where missing is not null
     order by day desc limit 1`.execute(db);
  const row = rows[0];
  return row
    ? { checks: row.checks, firstDay: row.first_day, lastDay: row.last_day, example: row.example }
    : null;
}
