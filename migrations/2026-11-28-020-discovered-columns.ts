import { type Kysely, sql } from "kysely";
import { commentOn } from "./support/comment-on.js";

/**
 * The columns made from what the upstream sends rather than declared by a migration, and every
 * change of them: a field's column added the first time it arrives, its type widened when a later
 * value needs it. Only adds two tables; the worker writes them in the transaction of the change,
 * committed on its own before the rows that needed it.
 */

const DISCOVERED_COLUMNS = {
  table_name: "The table (schema-qualified) the column belongs to.",
  column_name: "The column.",
  field:
    "The upstream's field it holds, as the record names it: one name, or an object's name and its field's (`photo`, `mimeType` for photo__mime_type).",
  data_type: "Its type now: boolean, bigint, numeric, date, timestamp, timestamptz, text or jsonb.",
  first_seen_at: "When the first value of the field arrived and the column was added.",
  changed_at: "When the column was added or last widened.",
};

const SCHEMA_CHANGES = {
  change_id: "Identifier, in the order the changes were made.",
  changed_at: "When the change was made (committed with the rows that needed it).",
  table_name: "The table (schema-qualified).",
  column_name: "The column added or widened.",
  field: "The upstream's field the column holds (see etl.discovered_columns.field).",
  change: "added: a field arrived for the first time; widened: a value needed a wider type.",
  from_type: "The type before a widening; null when added.",
  to_type: "The type after the change.",
  stream: "The stream whose records carried the field.",
  partition: "The partition being synced (or replayed) when it arrived.",
  run_id: "The attempt that made the change (etl.sync_runs.run_id).",
  response_id:
    "The stored response (etl.responses) whose records first carried the field or the value; null when it could not be told, or when the write that needed the change failed (the column stays: a later sync fills it).",
};

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table etl.discovered_columns (
      table_name text not null,
      column_name text not null,
      field text[] not null,
      data_type text not null,
      first_seen_at timestamptz not null default now(),
      changed_at timestamptz not null default now(),
      primary key (table_name, column_name),
      unique (table_name, field)
    )`.execute(db);
  await commentOn(
    db,
    "etl.discovered_columns",
    'The typed columns made from what the upstream sends: a field the spec does not show gets one the first time it arrives, named as the upstream names it (snake case), typed from its values and widened when a later value needs it (docs/warehouse.md, "Discovered columns"). Each is also described by its own COMMENT ON.',
    DISCOVERED_COLUMNS,
  );
  await sql`
    create table etl.schema_changes (
      change_id bigint generated always as identity primary key,
      changed_at timestamptz not null default now(),
      table_name text not null,
      column_name text not null,
      field text[] not null,
      change text not null check (change in ('added', 'widened')),
      from_type text,
      to_type text not null,
      stream text not null,
      partition text not null,
      run_id text not null,
      response_id bigint
    )`.execute(db);
  await sql`create index schema_changes_by_column
    on etl.schema_changes (table_name, column_name)`.execute(db);
  await sql`create index schema_changes_by_run on etl.schema_changes (run_id)`.execute(db);
  await commentOn(
    db,
    "etl.schema_changes",
    "Every change the worker made to a table's columns, from what the upstream sent: a column added for a new field, a type widened for a value the old one could not hold. Events, not warnings: nothing was lost.",
    SCHEMA_CHANGES,
  );
}
