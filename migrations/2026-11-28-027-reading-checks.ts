import { type Kysely, sql } from "kysely";
import { commentOn } from "./support/comment-on.js";
import { commentOnView } from "./support/comment-on-view.js";

/**
 * The upstream says a day's figures three ways per selection and sale type: the totals, the sum of
 * the list's items, and the chart's Total series. After every run that wrote trends days, the
 * worker compares them for those days (etl.check_readings) and records the outcome; the data is
 * never changed. Only adds.
 */

/** An item's count in raw when it is a whole number, as the sales views read it; else null. */
const ITEM_COUNT = `case when i.raw ->> 'count' ~ '^-?[0-9]{1,18}$' then (i.raw ->> 'count')::bigint end`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table etl.reading_checks (
      day date not null,
      selection_type text not null,
      sale_type text not null,
      total bigint,
      items_sum bigint,
      items integer,
      chart_total bigint,
      agree boolean not null,
      checked_at timestamptz not null default now(),
      checked_by text,
      primary key (day, selection_type, sale_type)
    )`.execute(db);
  await sql`create index reading_checks_disagree on etl.reading_checks (day)
    where not agree`.execute(db);
  await commentOn(
    db,
    "etl.reading_checks",
    "The last comparison of a day's three readings of one selection and sale type: the totals (sales.trend_totals), the sum of the list's items (sales.trend_items) and the chart's Total (sales.trend_chart_points). A reading the warehouse does not hold is null and compared with nothing.",
    {
      day: "The day compared.",
      selection_type: "dsp, territory, label, product or asset.",
      sale_type: "stream or download.",
      total: "The totals' stream_count or download_count.",
      items_sum:
        "The sum of the list's item counts (raw count, as the sales views read it); null when an item's count is not a whole number or the list is not held.",
      items: "How many items the list holds.",
      chart_total: "The chart's Total series that day.",
      agree: "Whether every reading held is equal.",
      checked_at: "When the comparison was made.",
      checked_by: "The run after which it was made (etl.runs.run_id), or null.",
    },
  );

  await sql`
    create function etl.check_readings(first_day date, last_day date, checked_by text)
      returns integer language sql as $$
    with totals as (
      select t.day, t.selection_type, s.sale_type,
             case s.sale_type when 'stream' then t.stream_count else t.download_count end as total
        from sales.trend_totals t
        cross join (values ('stream'), ('download')) as s(sale_type)
       where t.day between first_day and last_day),
    items as (
      select i.day, i.selection_type, i.sale_type, count(*)::integer as items,
             case when bool_and(${sql.raw(ITEM_COUNT)} is not null)
                  then sum(${sql.raw(ITEM_COUNT)}) end::bigint as items_sum
        from sales.trend_items i
       where i.day between first_day and last_day
       group by 1, 2, 3),
    chart as (
      select c.day, c.selection_type, c.sale_type, c.total as chart_total
        from sales.trend_chart_points c
       where c.day between first_day and last_day and lower(c.series) = 'total'),
    readings as (
      select coalesce(t.day, i.day, c.day) as day,
             coalesce(t.selection_type, i.selection_type, c.selection_type) as selection_type,
             coalesce(t.sale_type, i.sale_type, c.sale_type) as sale_type,
             t.total, i.items_sum, i.items, c.chart_total
        from totals t
        full join items i using (day, selection_type, sale_type)
        full join chart c using (day, selection_type, sale_type)),
    written as (
      insert into etl.reading_checks as r
        (day, selection_type, sale_type, total, items_sum, items, chart_total, agree, checked_by)
      select day, selection_type, sale_type, total, items_sum, items, chart_total,
             (select count(distinct v) <= 1
                from unnest(array[total, items_sum, chart_total]) as v),
             checked_by
        from readings
      on conflict (day, selection_type, sale_type) do update
        set total = excluded.total, items_sum = excluded.items_sum, items = excluded.items,
            chart_total = excluded.chart_total, agree = excluded.agree,
            checked_at = now(), checked_by = excluded.checked_by
      returning agree)
    select count(*) filter (where not agree)::integer from written
    $$`.execute(db);

  // The days a run's trends attempts changed: a run that changed none leaves the last check as is.
  await sql`
    create function etl.check_run_readings(checked_run text) returns integer language sql as $$
      select coalesce(etl.check_readings(min(d.day), max(d.day), checked_run), 0)
        from (select (s.partition_data ->> 'day')::date as day
                from etl.sync_runs s
               where s.run = checked_run and s.status = 'succeeded' and s.rows_written > 0
                 and s.stream in ('trend_totals', 'trend_items', 'trend_chart_points')) d
    $$`.execute(db);

  await sql`create view analytics.reading_checks as ${CHECKS}`.execute(db);
  await commentOnView(
    db,
    "analytics.reading_checks",
    "Each day's three readings of the same sales, as last checked after a run: the totals, the sum of the list's items and the chart's Total, and whether they agree (where not agree: the disagreements). The data is left as received; docs/warehouse.md says what each disagreement usually means.",
    {
      day: "The day.",
      selection_type: "dsp, territory, label, product or asset.",
      sale_type: "stream or download.",
      total: "The totals' count (sales.trend_totals).",
      items_sum: "The sum of the list's item counts (sales.trend_items).",
      chart_total: "The chart's Total series (sales.trend_chart_points).",
      items: "How many items the list holds.",
      items_gap:
        "items_sum - total (or - chart_total without totals): negative when the list holds less than the day's total.",
      chart_gap: "chart_total - total (or - items_sum without totals).",
      agree: "Whether every reading held is equal.",
      checked_at: "When the readings were compared.",
      checked_by: "The run after which they were compared (etl.runs.run_id).",
    },
  );
}

const CHECKS = sql`
  select day, selection_type, sale_type, total, items_sum, chart_total, items,
         items_sum - coalesce(total, chart_total) as items_gap,
         chart_total - coalesce(total, items_sum) as chart_gap,
         agree, checked_at, checked_by
    from etl.reading_checks`;

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop view analytics.reading_checks`.execute(db);
  await sql`drop function etl.check_run_readings(text)`.execute(db);
  await sql`drop function etl.check_readings(date, date, text)`.execute(db);
  await sql`drop table etl.reading_checks`.execute(db);
}
