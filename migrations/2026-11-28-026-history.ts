import { type Kysely, sql } from "kysely";
import { commentOn } from "./support/comment-on.js";
import { commentOnView } from "./support/comment-on-view.js";
import { createKeepVersionPerRow } from "./support/keep-version-per-row.js";

/**
 * The history of the values the upstream restates (late sales, fraud removed, incomes settled):
 * every change of a kept table's typed values, and every row a replace removed, as the version it
 * ended, with when it was held (from the row's synced_at to the change) and by which attempt the
 * change was seen. A trigger writes it in the transaction of the change, so it is as exact as the
 * table: the writer updates a row only when a value differs, so a re-sync with nothing restated
 * writes no history, and a version begins only where the writer moves synced_at, so neither a
 * column filled from raw nor a replay (which leaves synced_at as the sync set it) starts one.
 * Inserts fire nothing: a backfill costs what it did. Only adds.
 */
/** The tables kept, their keys (the trigger's arguments) and the column of the day they are about. */
const KEPT = [
  ["sales.trend_totals", ["day", "selection_type"], "day"],
  ["sales.trend_items", ["day", "selection_type", "sale_type", "item_id"], "day"],
  ["sales.trend_chart_points", ["day", "selection_type", "sale_type", "series_position"], "day"],
  ["royalties.incomes", ["income_key"], "period_start"],
  ["royalties.invoices", ["invoice_key", "snapshot_date"], "snapshot_date"],
] as const;

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create schema history`.execute(db);
  await sql`comment on schema history is ${sql.lit(
    "What the warehouse held before the upstream restated it: history.as_of(null::<table>, <time>) reads a kept table as it was; history.value_changes and history.restatements say what changed, by how much, and when.",
  )}`.execute(db);

  await sql`
    create table history.kept_tables (
      table_name text primary key,
      key_columns text[] not null,
      day_column text not null
    )`.execute(db);
  await commentOn(db, "history.kept_tables", "The tables whose restated values are kept.", {
    table_name: "The table, schema-qualified.",
    key_columns: "The columns that identify a row (its primary key).",
    day_column: "The column of the day a row is about: what history.restatements counts by.",
  });

  await sql`
    create table history.row_versions (
      version_id bigint generated always as identity primary key,
      table_name text not null,
      key jsonb not null,
      old_values jsonb not null,
      new_values jsonb,
      valid_from timestamptz not null,
      seen_at timestamptz not null default now(),
      attempt_id bigint
    )`.execute(db);
  await sql`create index row_versions_seen on history.row_versions (table_name, seen_at)`.execute(
    db,
  );
  await sql`create index row_versions_key on history.row_versions (table_name, key)`.execute(db);
  await commentOn(
    db,
    "history.row_versions",
    "One row per version of a kept table's row that ended: restated (a typed value changed) or removed (a day's list replaced without it). The table holds the version that is current; this, the ones before.",
    {
      version_id: "Order of writing.",
      table_name: "The kept table (history.kept_tables).",
      key: "The row's key columns and values, as JSON.",
      old_values:
        "Every typed column of the version that ended, as JSON (raw and synced_at left out): exact numbers, as stored.",
      new_values:
        "The columns that changed and their new values; null when the row was removed; {} when only its raw record changed.",
      valid_from: "When the version that ended began: the row's synced_at then.",
      seen_at: "When the change was written: the version ended then.",
      attempt_id:
        "The attempt that saw the change (etl.sync_runs.run_id, whose run is etl.sync_runs.run); null for a change made outside one.",
    },
  );

  // Called from the writer's own statements (the condition of an update or delete), so that
  // saying who writes costs no round trip: set_config is local to the transaction.
  await sql`
    create function history.note_writer(attempt bigint, replaying boolean, keep boolean)
      returns boolean language sql volatile as $$
      select set_config('music_etl.attempt', coalesce(attempt::text, ''), true) is not null
         and set_config('music_etl.replaying', case when replaying then 'on' else 'off' end, true)
             is not null
         and set_config('music_etl.history', case when keep then 'on' else 'off' end, true)
             is not null
    $$`.execute(db);
  await sql`comment on function history.note_writer(bigint, boolean, boolean) is ${sql.lit(
    "Says, for the rest of the transaction, which attempt writes, whether it replays, and whether its stream keeps history; always true.",
  )}`.execute(db);

  await createKeepVersionPerRow(db);

  for (const [table, key, day] of KEPT) {
    const [schema, name] = table.split(".") as [string, string];
    await sql`insert into history.kept_tables values (${table}, ${sql.val(key)}, ${day})`.execute(
      db,
    );
    await sql`
      create trigger keep_version before update or delete on ${sql.table(`${schema}.${name}`)}
      for each row execute function history.keep_version(${sql.raw(key.map((k) => `'${k}'`).join(", "))})`.execute(
      db,
    );
  }

  await sql`
    create function history.as_of(kept anyelement, at timestamptz) returns setof anyelement
      language plpgsql stable as $$
    declare
      name text := (select k.table_name from history.kept_tables k
                     where to_regclass(k.table_name) = to_regclass(pg_typeof(kept)::text));
    begin
      if name is null then
        raise exception 'history.as_of: % is not a kept table (history.kept_tables)', pg_typeof(kept);
      end if;
      return query execute format(
        'select * from %s where synced_at <= $1
         union all
         select (jsonb_populate_record($2, v.old_values
                   || jsonb_build_object(''synced_at'', v.valid_from))).*
           from history.row_versions v
          where v.table_name = %L and v.valid_from <= $1 and $1 < v.seen_at',
        name, name)
      using at, kept;
    end
    $$`.execute(db);
  await sql`comment on function history.as_of(anyelement, timestamptz) is ${sql.lit(
    "A kept table as the warehouse held it at a time: select * from history.as_of(null::royalties.incomes, '2026-04-02'). Rows are the versions held then; raw is null for a version that has ended, and synced_at is when the version began.",
  )}`.execute(db);

  await sql`
    create function history.numeric_change(old_value jsonb, new_value jsonb) returns numeric
      language sql immutable as $$
      select case when jsonb_typeof(old_value) = 'number' and jsonb_typeof(new_value) = 'number'
                  then new_value::text::numeric - old_value::text::numeric end
    $$`.execute(db);
  await sql`comment on function history.numeric_change(jsonb, jsonb) is ${sql.lit(
    "new - old when both are JSON numbers (exact: from their text); else null.",
  )}`.execute(db);

  await sql`create view history.value_changes as ${VALUE_CHANGES}`.execute(db);
  await commentOnView(
    db,
    "history.value_changes",
    "Every typed value the upstream restated: one row per column of a row version that changed.",
    {
      table_name: "The kept table.",
      key: "The row's key columns and values, as JSON.",
      column_name: "The column whose value changed.",
      old_value: "The value held before, as JSON (exact: numbers as stored).",
      new_value: "The value that replaced it, as JSON.",
      change: "new_value - old_value when both are numbers; else null.",
      valid_from: "Since when the old value was held.",
      seen_at: "When the new value was written.",
      attempt_id: "The attempt that wrote it (etl.sync_runs.run_id).",
      stream: "The stream of that attempt.",
      run: "The run of that attempt (etl.runs.run_id).",
    },
  );
  await sql`create view history.restatements as ${RESTATEMENTS}`.execute(db);
  await commentOnView(
    db,
    "history.restatements",
    "Restatements per day a row is about, kept table and day they were seen: how many rows changed or were removed, how many values changed and by how much.",
    {
      table_name: "The kept table.",
      stream: "The stream whose attempt saw the change (null: a change made outside one).",
      day: "The day the rows are about (history.kept_tables.day_column).",
      seen_on: "The day (UTC) the changes were written.",
      rows_changed: "Rows whose values changed.",
      rows_removed: "Rows removed (a day's list or a snapshot replaced without them).",
      values_changed: "Typed values changed, over those rows.",
      net_change: "The sum of the numeric values' changes (new - old).",
      first_seen_at: "The first change of the group.",
      last_seen_at: "The last change of the group.",
    },
  );
}

const VALUE_CHANGES = sql`
  select v.table_name, v.key, c.key as column_name,
         v.old_values -> c.key as old_value, c.value as new_value,
         history.numeric_change(v.old_values -> c.key, c.value) as change,
         v.valid_from, v.seen_at, v.attempt_id, r.stream, r.run
    from history.row_versions v
    cross join lateral jsonb_each(coalesce(v.new_values, '{}')) c
    left join etl.sync_runs r on r.run_id = v.attempt_id`;

const RESTATEMENTS = sql`
  select v.table_name, r.stream, (v.old_values ->> k.day_column)::date as day,
         (v.seen_at at time zone 'UTC')::date as seen_on,
         count(*) filter (where v.new_values is not null) as rows_changed,
         count(*) filter (where v.new_values is null) as rows_removed,
         coalesce(sum(c.values_changed), 0) as values_changed,
         coalesce(sum(c.net_change), 0) as net_change,
         min(v.seen_at) as first_seen_at, max(v.seen_at) as last_seen_at
    from history.row_versions v
    join history.kept_tables k on k.table_name = v.table_name
    left join etl.sync_runs r on r.run_id = v.attempt_id
    cross join lateral (
      select count(*) as values_changed,
             sum(history.numeric_change(v.old_values -> n.key, n.value)) as net_change
        from jsonb_each(coalesce(v.new_values, '{}')) n) c
   group by 1, 2, 3, 4`;

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const [table] of KEPT) {
    const [schema, name] = table.split(".") as [string, string];
    await sql`drop trigger keep_version on ${sql.table(`${schema}.${name}`)}`.execute(db);
  }
  await sql`drop schema history cascade`.execute(db);
}
