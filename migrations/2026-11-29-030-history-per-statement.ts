import { type Kysely, sql } from "kysely";
import { createKeepVersionPerRow } from "./support/keep-version-per-row.js";

/**
 * The history of the kept tables written once per statement instead of once per row: a
 * row-level trigger ran a function and an insert for each restated row, which made a load that
 * restates a tenth of a day's rows some 40 % slower; a statement's trigger reads every row the
 * statement changed from its transition tables (the rows before and after) and writes their
 * versions in one insert. What it writes is what the row-level trigger wrote: a version only where
 * the writer moved synced_at, none while a stream keeps no history, no removal while replaying.
 * Postgres allows transition tables on a trigger of one event only, hence one for updates and
 * one for deletes. The rows' keys (the triggers' arguments) join the two transition tables; the
 * writer never changes a key, it inserts a new row.
 */

/** The kept tables and their keys, as migration 026 recorded them. */
async function keptTables(db: Kysely<unknown>): Promise<{ table: string; key: string[] }[]> {
  const { rows } = await sql<{ table_name: string; key_columns: string[] }>`
    select table_name, key_columns from history.kept_tables order by table_name`.execute(db);
  return rows.map((row) => ({ table: row.table_name, key: row.key_columns }));
}

const keyArguments = (key: readonly string[]) => sql.raw(key.map((k) => `'${k}'`).join(", "));

export async function up(db: Kysely<unknown>): Promise<void> {
  // The changed values are found column by column, in SQL made from the table's columns at each
  // statement (a discovered column counts from the statement after it is added): comparing the
  // two versions' JSON key by key cost more than all the rest of the version.
  await sql`
    create function history.keep_versions() returns trigger language plpgsql as $$
    declare
      row_key text;
      same_key text;
      changed text;
    begin
      if current_setting('music_etl.history', true) = 'off'
         or (tg_op = 'DELETE' and current_setting('music_etl.replaying', true) = 'on') then
        return null;
      end if;
      -- A statement that changed no row writes nothing (every upsert fires the update trigger,
      -- whatever it changed), and asks for no privilege on the history.
      if not exists (select from old_rows) then
        return null;
      end if;
      select string_agg(format('%1$L, o.%1$I', k), ', '),
             string_agg(format('n.%1$I = o.%1$I', k), ' and ')
        into row_key, same_key
        from unnest(tg_argv) k;
      if tg_op = 'DELETE' then
        execute format($q$
          insert into history.row_versions
            (table_name, key, old_values, new_values, valid_from, seen_at, attempt_id)
          select $1, jsonb_build_object(%s), to_jsonb(o) - 'raw' - 'synced_at', null,
                 o.synced_at, now(), $2
            from old_rows o$q$, row_key)
        using tg_table_schema || '.' || tg_table_name,
              nullif(current_setting('music_etl.attempt', true), '')::bigint;
        return null;
      end if;
      select string_agg(format(
               ' || case when n.%1$I is distinct from o.%1$I then jsonb_build_object(%1$L, n.%1$I)'
               ' else ''{}'' end', a.attname), '' order by a.attnum)
        into changed
        from pg_attribute a
       where a.attrelid = tg_relid and a.attnum > 0 and not a.attisdropped
         and a.attname not in ('raw', 'synced_at') and a.attname <> all (tg_argv);
      -- An update's version ends where the next begins (its synced_at), so that as_of finds one;
      -- an update that leaves synced_at (a column filled from raw, a replay) begins none.
      execute format($q$
        insert into history.row_versions
          (table_name, key, old_values, new_values, valid_from, seen_at, attempt_id)
        select $1, jsonb_build_object(%s), to_jsonb(o) - 'raw' - 'synced_at',
               '{}'::jsonb %s,
               o.synced_at, n.synced_at, $2
          from old_rows o join new_rows n on %s
         where n.synced_at is distinct from o.synced_at$q$, row_key, changed, same_key)
      using tg_table_schema || '.' || tg_table_name,
            nullif(current_setting('music_etl.attempt', true), '')::bigint;
      return null;
    end
    $$`.execute(db);

  for (const { table, key } of await keptTables(db)) {
    await sql`drop trigger keep_version on ${sql.table(table)}`.execute(db);
    await sql`
      create trigger keep_versions_updated after update on ${sql.table(table)}
      referencing old table as old_rows new table as new_rows
      for each statement execute function history.keep_versions(${keyArguments(key)})`.execute(db);
    await sql`
      create trigger keep_versions_removed after delete on ${sql.table(table)}
      referencing old table as old_rows
      for each statement execute function history.keep_versions(${keyArguments(key)})`.execute(db);
  }
  await sql`drop function history.keep_version()`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await createKeepVersionPerRow(db);
  for (const { table, key } of await keptTables(db)) {
    await sql`drop trigger keep_versions_updated on ${sql.table(table)}`.execute(db);
    await sql`drop trigger keep_versions_removed on ${sql.table(table)}`.execute(db);
    await sql`
      create trigger keep_version before update or delete on ${sql.table(table)}
      for each row execute function history.keep_version(${keyArguments(key)})`.execute(db);
  }
  await sql`drop function history.keep_versions()`.execute(db);
}
