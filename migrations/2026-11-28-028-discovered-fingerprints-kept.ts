import { type Kysely, sql } from "kysely";
import { commentOn } from "./support/comment-on.js";

/**
 * The fingerprint of each table's discovered columns kept in a row of its own, made again by a
 * trigger whenever etl.discovered_columns changes, so that the statement closing every partition
 * reads it by key instead of aggregating and hashing the table's columns each time: a change of
 * columns is rare, a partition's close is not. etl.discovered_columns_fingerprints keeps its
 * signature, its answers and its comment (a replaced function keeps it), so a worker of the
 * release before reads the same. Only adds.
 */

const TABLE =
  "The fingerprint of each table's discovered columns (etl.discovered_columns), kept by a trigger on that table: what etl.discovered_columns_fingerprints answers.";
const COLUMNS = {
  table_name: "The table, schema-qualified, as etl.discovered_columns names it.",
  fingerprint:
    "An md5 of the table's discovered columns: each column's name and type, ordered by name in byte order.",
};
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table etl.discovered_fingerprints (
      table_name text primary key,
      fingerprint text not null
    )`.execute(db);
  await commentOn(db, "etl.discovered_fingerprints", TABLE, COLUMNS);
  await sql`
    create function etl.discovered_fingerprint_of(target text) returns text
      language sql stable as $$
      select md5(string_agg(c.column_name || ' ' || c.data_type, ','
                            order by c.column_name collate "C"))
        from etl.discovered_columns c where c.table_name = target
    $$`.execute(db);
  // A table left with no column keeps no row: the closing statement reads it as empty.
  await sql`
    create function etl.keep_discovered_fingerprint_for(target text) returns void
      language plpgsql as $$
    declare
      kept text := etl.discovered_fingerprint_of(target);
    begin
      if kept is null then
        delete from etl.discovered_fingerprints where table_name = target;
      else
        insert into etl.discovered_fingerprints (table_name, fingerprint) values (target, kept)
          on conflict (table_name) do update set fingerprint = excluded.fingerprint;
      end if;
    end
    $$`.execute(db);
  await sql`
    create function etl.keep_discovered_fingerprint() returns trigger
      language plpgsql as $$
    begin
      if tg_op <> 'INSERT' then perform etl.keep_discovered_fingerprint_for(old.table_name); end if;
      if tg_op <> 'DELETE' then perform etl.keep_discovered_fingerprint_for(new.table_name); end if;
      return null;
    end
    $$`.execute(db);
  await sql`
    create trigger discovered_fingerprint_kept
      after insert or update or delete on etl.discovered_columns
      for each row execute function etl.keep_discovered_fingerprint()`.execute(db);
  await sql`
    insert into etl.discovered_fingerprints (table_name, fingerprint)
    select table_name, etl.discovered_fingerprint_of(table_name)
      from etl.discovered_columns group by table_name`.execute(db);
  // A lookup a table in a loop: one cached plan each, where a subquery over unnest is an executor
  // set up at every call (some 100 µs, against 12 for one table).
  await sql`
    create or replace function etl.discovered_columns_fingerprints(tables text[]) returns text[]
      language plpgsql stable as $$
    declare
      name text;
      kept text;
      prints text[] := '{}';
    begin
      foreach name in array coalesce(tables, '{}') loop
        select f.fingerprint into kept from etl.discovered_fingerprints f where f.table_name = name;
        prints := prints || coalesce(kept, '');
      end loop;
      return prints;
    end
    $$`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    create or replace function etl.discovered_columns_fingerprints(tables text[]) returns text[]
      language plpgsql stable as $$
    begin
      return array(
        select coalesce((select md5(string_agg(c.column_name || ' ' || c.data_type, ','
                                               order by c.column_name collate "C"))
                           from etl.discovered_columns c where c.table_name = t.name), '')
          from unnest(tables) with ordinality as t(name, position)
         order by t.position);
    end
    $$`.execute(db);
  await sql`drop trigger discovered_fingerprint_kept on etl.discovered_columns`.execute(db);
  await sql`drop function etl.keep_discovered_fingerprint()`.execute(db);
  await sql`drop function etl.keep_discovered_fingerprint_for(text)`.execute(db);
  await sql`drop function etl.discovered_fingerprint_of(text)`.execute(db);
  await sql`drop table etl.discovered_fingerprints`.execute(db);
}
