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
  const topProducts = (from: string, to: string) => `
select product_id, upc, title, sum(streams) as streams, sum(downloads) as downloads
  from analytics.daily_sales_by_product
 where ${period(from, to)}
 group by product_id, upc, title
 order by streams desc, product_id
 limit 10`;
  const topAssets = (from: string, to: string) => `
select asset_id, isrc, title, product_id, sum(streams) as streams, sum(downloads) as downloads
  from analytics.asset_daily_streams
 where ${period(from, to)}
 group by asset_id, isrc, title, product_id
 order by streams desc, asset_id
 limit 10`;
  return [
    { name: "top 10 products, a month", sql: topProducts(monthStart, monthEnd) },
    { name: "top 10 products, a year", sql: topProducts(yearStart, monthEnd) },
    { name: "top 10 assets, a month", sql: topAssets(monthStart, monthEnd) },
    { name: "top 10 assets, a year", sql: topAssets(yearStart, monthEnd) },
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
    ...DOCS_EXAMPLES,
  ];
}

/** docs/warehouse.md's example queries over what a BI dataset holds, as the docs give them. */
const DOCS_EXAMPLES: readonly BiQuery[] = [
  {
    name: "docs 1: top 10 tracks, last 7 days",
    sql: `
with period as (select max(day) - 6 as first_day, max(day) as last_day from sales.trend_items)
select s.asset_id, s.isrc, coalesce(s.title, max(s.reported_name)) as title,
       sum(s.streams) as streams, sum(s.downloads) as downloads,
       min(s.day) as first_day, max(s.day) as last_day
  from analytics.asset_daily_streams s, period p
 where s.day between p.first_day and p.last_day
 group by s.asset_id, s.isrc, s.title
 order by streams desc, s.asset_id
 limit 10`,
  },
  {
    name: "docs 2: streams per DSP, last 7 days",
    sql: `
with period as (select max(day) - 6 as first_day, max(day) as last_day from sales.trend_items)
select coalesce(dsp_name, max(reported_name)) as dsp, sum(streams) as streams,
       round(100.0 * sum(streams) / nullif(sum(sum(streams)) over (), 0), 2) as share_percent
  from analytics.daily_sales_by_dsp s, period p
 where s.day between p.first_day and p.last_day
 group by dsp_id, dsp_name
 order by streams desc`,
  },
  {
    name: "docs 3: daily totals, last 30",
    sql: `
select day, stream_count, download_count
  from sales.trend_totals
 where selection_type = 'dsp'
 order by day desc
 limit 30`,
  },
  {
    name: "docs 4: top 10 territories, last 7 days",
    sql: `
with period as (select max(day) - 6 as first_day, max(day) as last_day from sales.trend_items)
select territory_code, coalesce(territory_name, max(reported_name)) as territory,
       sum(streams) as streams, sum(downloads) as downloads
  from analytics.daily_sales_by_territory s, period p
 where s.day between p.first_day and p.last_day
 group by territory_code, territory_name
 order by streams desc
 limit 10`,
  },
  {
    name: "docs 5: best-selling releases, last 7 days",
    sql: `
with period as (select max(day) - 6 as first_day, max(day) as last_day from sales.trend_items)
select s.product_id, s.upc, s.title, p.label, p.release_date,
       sum(s.streams) as streams, sum(s.downloads) as downloads
  from analytics.daily_sales_by_product s
  join catalogue.products p using (product_id), period
 where s.day between period.first_day and period.last_day
 group by s.product_id, s.upc, s.title, p.label, p.release_date
 order by streams desc
 limit 10`,
  },
  {
    name: "docs 6: payouts by status",
    sql: `
select status, currency, payouts, total_amount, total_fees, total_net_amount
  from analytics.payouts_by_status
 order by status, currency`,
  },
  {
    name: "docs 7: latest payouts and their statuses",
    sql: `
select p.payout_id, p.created_at, p.amount, p.currency, p.status as current_status,
       string_agg(h.status, ' → ' order by h.observed_at) as statuses_seen
  from royalties.payouts p
  join royalties.payout_status_history h using (payout_id)
 group by p.payout_id
 order by p.created_at desc
 limit 20`,
  },
  {
    name: "docs 11: incomes per month, source and currency",
    sql: `
select period_start, source, currency, count(*) as incomes, sum(amount) as amount
  from royalties.incomes
 group by period_start, source, currency
 order by period_start desc, amount desc`,
  },
  {
    name: "docs 14: weekly sales, last 12 weeks",
    sql: `
select iso_week_label, week_start, streams, downloads, days_reported
  from analytics.weekly_sales
 order by week_start desc
 limit 12`,
  },
  {
    name: "docs 15: monthly sales by DSP, with shares",
    sql: `
select month_label, dsp, streams,
       round(100.0 * streams / nullif(sum(streams) over (partition by month_start), 0), 1)
         as share_percent
  from analytics.monthly_sales_by_dsp
 order by month_start desc, streams desc`,
  },
  {
    name: "docs 16: streams by day of the week",
    sql: `
select c.iso_day_of_week, c.day_name, c.is_weekend, sum(s.streams) as streams,
       count(distinct s.day) as days
  from analytics.daily_sales_by_territory s
  join analytics.calendar c on c.day = s.day
 group by c.iso_day_of_week, c.day_name, c.is_weekend
 order by c.iso_day_of_week`,
  },
];
