import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { PROJECT_ROOT } from "../test/helpers/cli.js";
import { addDays, type BiScale } from "./bi-scale.js";

/** One analyst's query, as written against the analytics views (or the tables the docs name). */
export interface BiQuery {
  readonly name: string;
  readonly sql: string;
}

/** What the queries are about: real ids and periods of the dataset. */
export interface BiQueryParameters {
  readonly productId: number;
  readonly dspId: number;
}

/**
 * The analysts' queries of a dataset: the month is its last (December), the year the last 12
 * months; then the example queries of docs/warehouse.md that read what the dataset holds, as the
 * docs give them (their periods relative to the latest day synced). The history's example reads
 * the month as the warehouse held it the day after it closed (the docs take the first run's end,
 * which a dataset written without runs does not have).
 */
export function biQueries(scale: BiScale, { productId, dspId }: BiQueryParameters): BiQuery[] {
  const monthEnd = scale.lastDay;
  const monthStart = `${monthEnd.slice(0, 7)}-01`;
  const yearStart = addDays(monthEnd, 1).replace(/^(\d{4})/, (year) => String(Number(year) - 1));
  const nextMonth = addDays(monthEnd, 1);
  const asOf = `${nextMonth} 12:00:00+00`;
  const period = (from: string, to: string) => `day between '${from}' and '${to}'`;
  const months = (from: string, to: string) => `month_start between '${from}' and '${to}'`;
  const topProducts = (view: string, filter: string) => `
select t.product_id, p.upc, p.title, t.streams, t.downloads
  from (select product_id, sum(streams) as streams, sum(downloads) as downloads
          from ${view}
         where ${filter}
         group by product_id
         order by streams desc nulls last, product_id
         limit 10) t
  left join analytics.products p using (product_id)
 order by t.streams desc nulls last, t.product_id`;
  const topAssets = (from: string, to: string) => `
select t.asset_id, a.isrc, a.title, a.product_id, t.streams, t.downloads
  from (select asset_id, sum(streams) as streams, sum(downloads) as downloads
          from analytics.monthly_sales_by_asset
         where ${months(from, to)}
         group by asset_id
         order by streams desc nulls last, asset_id
         limit 10) t
  left join analytics.assets a using (asset_id)
 order by t.streams desc nulls last, t.asset_id`;
  const monthly = "analytics.monthly_sales_by_product";
  return [
    { name: "top 10 products, a month", sql: topProducts(monthly, months(monthStart, monthStart)) },
    { name: "top 10 products, a year", sql: topProducts(monthly, months(yearStart, monthStart)) },
    { name: "top 10 assets, a month", sql: topAssets(monthStart, monthStart) },
    { name: "top 10 assets, a year", sql: topAssets(yearStart, monthStart) },
    {
      name: "top 10 products, the last 7 days",
      sql: topProducts("analytics.daily_sales_by_product", period(addDays(monthEnd, -6), monthEnd)),
    },
    {
      name: "one product's days, a year",
      sql: `
select day, title, streams, downloads
  from analytics.daily_sales_by_product
 where product_id = ${productId} and ${period(yearStart, monthEnd)}
 order by day`,
    },
    {
      name: "one DSP's month",
      sql: `
select day, dsp_name, streams, downloads
  from analytics.daily_sales_by_dsp
 where dsp_id = ${dspId} and ${period(monthStart, monthEnd)}
 order by day`,
    },
    {
      name: "weekly sales, a year",
      sql: `
select iso_week_label, week_start, streams, downloads, days_reported
  from analytics.weekly_sales
 where week_start between date '${yearStart}' - 6 and date '${monthEnd}'
 order by week_start`,
    },
    {
      name: "monthly sales by DSP, a year",
      sql: `
select month_label, dsp, streams, downloads, days_reported
  from analytics.monthly_sales_by_dsp
 where month_start between '${yearStart}' and '${monthStart}'
 order by month_start, streams desc`,
    },
    {
      name: "a month's totals as of the day after (docs: history)",
      sql: `
select 'reported' as version, sum(stream_count) as streams
  from history.as_of(null::sales.trend_totals, timestamptz '${asOf}')
 where selection_type = 'dsp' and day >= '${monthStart}' and day < '${nextMonth}'
union all
select 'now', sum(stream_count)
  from sales.trend_totals
 where selection_type = 'dsp' and day >= '${monthStart}' and day < '${nextMonth}'`,
    },
    ...docsExamples(),
  ];
}

/** The examples of docs/warehouse.md that read what a BI dataset holds, by their number. */
const DOCS_EXAMPLES = [1, 2, 3, 4, 5, 6, 7, 11, 14, 15, 16, 18, 19];

/**
 * docs/warehouse.md's example queries over what a BI dataset holds, read from the docs as they
 * are written there: each numbered example's first SQL block, named by its number and its words.
 */
function docsExamples(): BiQuery[] {
  const docs = readFileSync(resolve(PROJECT_ROOT, "docs/warehouse.md"), "utf8");
  const section = docs.slice(docs.indexOf("## Example queries"));
  const examples = new Map(
    [...section.matchAll(/^(\d+)\. ([^\n]*)[\s\S]*?```sql\n([\s\S]*?)```/gm)].map((m) => [
      Number(m[1]),
      {
        title: (m[2] ?? "").replace(/[:.,(].*$/, "").trim(),
        sql: (m[3] ?? "").replace(/;\s*$/, ""),
      },
    ]),
  );
  return DOCS_EXAMPLES.map((n) => {
    const example = examples.get(n);
    if (!example) throw new Error(`docs/warehouse.md has no example query ${n}`);
    return { name: `docs ${n}: ${example.title.toLowerCase()}`, sql: `\n${example.sql}` };
  });
}
