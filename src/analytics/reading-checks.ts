import { sql } from "kysely";
import type { AnalyticsObject } from "./analytics-object.js";
import type { ResolvedRoles } from "./resolved-roles.js";
import { roleKey, TREND_ITEM_UNITS } from "./roles.js";

const SCOPES = TREND_ITEM_UNITS.scopes;

/** Why a scope's list reading is missing when items carry no whole number in its units. */
function unitsGap(roles: ResolvedRoles) {
  const reasons = SCOPES.map((scope) => {
    const r = roles.resolution(TREND_ITEM_UNITS, scope);
    // format() reads % as its own: the sentences' are doubled.
    const text = r?.column
      ? `list: %s of %s items carry no whole number in ${r.field?.replaceAll("%", "%%")}`
      : `list: its units are ${r?.how ?? "not resolved"}, %s of %s items uncounted (${roleKey(TREND_ITEM_UNITS, scope)}: ${(r?.summary ?? "not resolved yet").replaceAll("%", "%%")})`;
    return sql`when ${sql.lit(scope)} then format(${sql.lit(text)}, i.items - i.counted, i.items)`;
  });
  return sql`case i.selection_type || '.' || i.sale_type ${sql.join(reasons, sql` `)} end`;
}

/**
 * etl.check_readings, through the units role: the day's three readings compared where all three
 * are held; where one is missing, the check is incomplete (agree null) and says which and why. A
 * list whose partition synced with no item is a reading of 0.
 */
// Long because the function's SQL is one statement, read best whole.
function checkReadings(roles: ResolvedRoles): AnalyticsObject {
  const units = roles.scopedValue(
    TREND_ITEM_UNITS,
    sql`i.selection_type || '.' || i.sale_type`,
    SCOPES,
  );
  return {
    name: "etl.check_readings(date, date, text)",
    kind: "function",
    definition: sql`
      create or replace function etl.check_readings(first_day date, last_day date, checked_by text)
        returns integer language sql as $$
      with totals as (
        select t.day, t.selection_type, s.sale_type,
               case s.sale_type when 'stream' then t.stream_count else t.download_count end as total
          from sales.trend_totals t
          cross join (values ('stream'), ('download')) as s(sale_type)
         where t.day between first_day and last_day),
      items as (
        select i.day, i.selection_type, i.sale_type, count(*)::integer as items,
               count(i.units)::integer as counted, sum(i.units)::bigint as units
          from (select i.day, i.selection_type, i.sale_type, ${units} as units
                  from sales.trend_items i where i.day between first_day and last_day) i
         group by 1, 2, 3),
      lists as (
        select i.day, i.selection_type, i.sale_type, i.items,
               case when i.counted = i.items then i.units end as items_sum,
               case when i.counted < i.items then ${unitsGap(roles)} end as gap
          from items i
        union all
        select (split_part(s.partition, '|', 1))::date, split_part(s.partition, '|', 2),
               split_part(s.partition, '|', 3), 0, 0, null
          from etl.stream_state s
         where s.stream = 'trend_items' and s.last_success_at is not null
           and s.partition between first_day::text and last_day::text || '~'
           and not exists (select 1 from sales.trend_items i
                            where i.day = (split_part(s.partition, '|', 1))::date
                              and i.selection_type = split_part(s.partition, '|', 2)
                              and i.sale_type = split_part(s.partition, '|', 3))),
      chart as (
        select c.day, c.selection_type, c.sale_type, c.total as chart_total
          from sales.trend_chart_points c
         where c.day between first_day and last_day and lower(c.series) = 'total'),
      readings as (
        select coalesce(t.day, l.day, c.day) as day,
               coalesce(t.selection_type, l.selection_type, c.selection_type) as selection_type,
               coalesce(t.sale_type, l.sale_type, c.sale_type) as sale_type,
               t.total, l.items_sum, l.items, c.chart_total,
               nullif(concat_ws('; ',
                 case when t.total is null then 'totals: none held for the day' end,
                 case when l.day is null then 'list: none held for the day' else l.gap end,
                 case when c.chart_total is null then 'chart: no Total series held for the day' end),
                 '') as missing
          from totals t
          full join lists l using (day, selection_type, sale_type)
          full join chart c using (day, selection_type, sale_type)),
      written as (
        insert into etl.reading_checks as r
          (day, selection_type, sale_type, total, items_sum, items, chart_total, agree, missing,
           checked_by)
        select day, selection_type, sale_type, total, items_sum, items, chart_total,
               case when missing is null then total = items_sum and total = chart_total end,
               missing, checked_by
          from readings
        on conflict (day, selection_type, sale_type) do update
          set total = excluded.total, items_sum = excluded.items_sum, items = excluded.items,
              chart_total = excluded.chart_total, agree = excluded.agree,
              missing = excluded.missing, checked_at = now(), checked_by = excluded.checked_by
        returning agree)
      select count(*) filter (where agree = false)::integer from written
      $$`,
  };
}

function checksView(): AnalyticsObject {
  return {
    name: "analytics.reading_checks",
    kind: "view",
    definition: sql`
      select day, selection_type, sale_type, total, items_sum, chart_total, items,
             items_sum - coalesce(total, chart_total) as items_gap,
             chart_total - coalesce(total, items_sum) as chart_gap,
             agree, checked_at, checked_by, missing
        from etl.reading_checks`,
    comment:
      "Each day's three readings of the same sales, as last checked after a run: the totals, the sum of the list's items' units (the units role, etl.roles) and the chart's Total, and whether they agree (where not agree: the disagreements; where agree is null: a reading is missing, and missing says which and why). The data is left as received; docs/warehouse.md says what each disagreement usually means.",
    columns: {
      items_sum:
        "The sum of the list's item units (sales.trend_items, through the units role); null when an item carries no whole number, the role is not resolved, or the list is not held (see missing).",
      agree:
        "Whether the three readings are equal; null when one is missing (see missing): a check that lacks a reading claims nothing.",
      missing: "The readings missing and why; null when all three are held and compared.",
    },
  };
}

/** The readings' check and its view, built from the units role. */
export function readingChecks(roles: ResolvedRoles): AnalyticsObject[] {
  return [checkReadings(roles), checksView()];
}
