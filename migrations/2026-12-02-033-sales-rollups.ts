import { type Kysely, sql } from "kysely";
import { commentOn } from "./support/comment-on.js";

/**
 * The sales views' roll-ups: each day's and each month's streams and downloads per entity, read
 * by the views instead of summing every list item again (a year of the large account is 11
 * million items). Every statement that writes sales.trend_items marks the days it touched stale
 * in the same transaction (a trigger), so a reader never sees a roll-up behind its table: the
 * views read a stale day from the items themselves until the worker rolls it up again (after
 * each run, from the roles; src/analytics/sales-rollups.ts); a truncate of the items empties
 * them. Every day held is stale at first.
 * Only adds.
 */

const FIGURES = {
  selection_type: "The trends' selection type: dsp, territory, label, product or asset.",
  item_id: "The entity's id as the list reports it (sales.trend_items.item_id).",
  numeric_id:
    "item_id as a number where it is one (a DSP's, a product's, an asset's id); null for a code.",
  streams:
    "Streams, the sum of the stream list items' units (the role trend_item_units); 0 when none were listed, null when one listed carries no readable whole number.",
  downloads:
    "Downloads, the sum of the download list items' units; 0 when none were listed, null when one listed carries no readable whole number.",
};

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table sales.trend_item_days (
      selection_type text not null,
      day date not null,
      item_id text not null,
      numeric_id bigint,
      reported_name text,
      streams bigint,
      downloads bigint
    )`.execute(db);
  // No unique key: one roll-up at a time writes a day, whole, after deleting it; a key would check
  // each row against the day's rows just deleted.
  await sql`create index trend_item_days_day on sales.trend_item_days (selection_type, day)`.execute(
    db,
  );
  await sql`create index trend_item_days_entity
    on sales.trend_item_days (selection_type, numeric_id, day)`.execute(db);
  await commentOn(
    db,
    "sales.trend_item_days",
    "Each day's streams and downloads per entity, side by side, rolled up from sales.trend_items through the roles (a day marked in sales.trend_item_stale_days is not read from here). Read analytics.daily_sales_by_* instead: they are exact where this is stale.",
    {
      ...FIGURES,
      day: "The day (sales.trend_items.day).",
      reported_name: "The entity's name as the lists reported it (the role trend_item_label).",
    },
  );
  await sql`
    create table sales.trend_item_months (
      selection_type text not null,
      month_start date not null,
      item_id text not null,
      numeric_id bigint,
      streams bigint,
      downloads bigint,
      days_listed integer not null
    )`.execute(db);
  await sql`create index trend_item_months_month
    on sales.trend_item_months (selection_type, month_start)`.execute(db);
  await sql`create index trend_item_months_entity
    on sales.trend_item_months (selection_type, numeric_id, month_start)`.execute(db);
  await commentOn(
    db,
    "sales.trend_item_months",
    "Each month's streams and downloads per entity, rolled up from sales.trend_item_days (a month with a stale day is not read from here). Read analytics.monthly_sales_by_* instead.",
    {
      ...FIGURES,
      month_start: "The month's first day.",
      streams: `${FIGURES.streams} Null when one day's is.`,
      downloads: `${FIGURES.downloads} Null when one day's is.`,
      days_listed: "Days of the month the entity was listed on.",
    },
  );
  await sql`
    create table sales.trend_item_stale_days (
      selection_type text not null,
      day date not null,
      marked_at timestamptz not null default now()
    )`.execute(db);
  await sql`create index trend_item_stale_days_day
    on sales.trend_item_stale_days (selection_type, day)`.execute(db);
  await commentOn(
    db,
    "sales.trend_item_stale_days",
    "The days whose list items changed since they were rolled up: marked by every statement that writes sales.trend_items, in its transaction; taken away when the day is rolled up again. A day may be marked more than once.",
    {
      selection_type: "The selection type whose items changed.",
      day: "The day whose items changed.",
      marked_at: "When it was marked.",
    },
  );
  // Postgres allows transition tables on a trigger of one event only: one trigger per event. As
  // its owner: a role that may write the items marks their days without a grant of its own.
  await sql`
    create function sales.mark_trend_item_days_stale() returns trigger language plpgsql
    security definer set search_path = pg_catalog, pg_temp as $$
    begin
      if tg_op <> 'DELETE' then
        insert into sales.trend_item_stale_days (selection_type, day)
        select distinct selection_type, day from new_rows;
      end if;
      if tg_op <> 'INSERT' then
        insert into sales.trend_item_stale_days (selection_type, day)
        select distinct selection_type, day from old_rows;
      end if;
      return null;
    end
    $$`.execute(db);
  const events = {
    inserted: [sql`insert`, sql`new table as new_rows`],
    updated: [sql`update`, sql`old table as old_rows new table as new_rows`],
    removed: [sql`delete`, sql`old table as old_rows`],
  };
  for (const [name, [event, tables]] of Object.entries(events)) {
    await sql`
      create trigger ${sql.id(`trend_item_days_stale_${name}`)} after ${event}
      on sales.trend_items referencing ${tables} for each statement
      execute function sales.mark_trend_item_days_stale()`.execute(db);
  }
  // A truncate fires no row's trigger: its own empties what was rolled up.
  await sql`
    create function sales.forget_trend_item_rollups() returns trigger language plpgsql
    security definer set search_path = pg_catalog, pg_temp as $$
    begin
      truncate sales.trend_item_days, sales.trend_item_months, sales.trend_item_stale_days;
      return null;
    end
    $$`.execute(db);
  await sql`
    create trigger trend_item_days_truncated after truncate on sales.trend_items
    for each statement execute function sales.forget_trend_item_rollups()`.execute(db);
  await sql`
    insert into sales.trend_item_stale_days (selection_type, day)
    select distinct selection_type, day from sales.trend_items`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const name of ["inserted", "updated", "removed"]) {
    await sql`drop trigger ${sql.id(`trend_item_days_stale_${name}`)} on sales.trend_items`.execute(
      db,
    );
  }
  await sql`drop trigger trend_item_days_truncated on sales.trend_items`.execute(db);
  await sql`drop function sales.mark_trend_item_days_stale(), sales.forget_trend_item_rollups()`.execute(
    db,
  );
  // The views that read them go with them; the worker builds them again as its version says.
  await sql`drop table sales.trend_item_stale_days, sales.trend_item_months, sales.trend_item_days
    cascade`.execute(db);
  await sql`delete from etl.analytics_builds`.execute(db);
}
