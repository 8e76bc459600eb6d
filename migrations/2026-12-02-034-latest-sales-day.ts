import { type Kysely, sql } from "kysely";

/**
 * analytics.latest_sales_day(): the latest day the trend lists hold, for a period relative to
 * what was synced (`where day > analytics.latest_sales_day() - 7`). A stable function is read by
 * the planner before it chooses a plan, so it sizes a week as a week and reads it by its index; a
 * subquery in its place is planned as a third of every day held, and on a large account that is
 * a scan of the whole roll-up.
 * Only adds.
 */

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create function analytics.latest_sales_day() returns date
    language sql stable parallel safe
    as $$ select max(day) from sales.trend_items $$`.execute(db);
  await sql`comment on function analytics.latest_sales_day() is ${sql.lit(
    "The latest day of sales.trend_items (null when none is held): use it for periods relative to the latest day synced, e.g. where day > analytics.latest_sales_day() - 7; the planner reads it before choosing a plan, which it cannot do with a subquery.",
  )}`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop function analytics.latest_sales_day()`.execute(db);
}
