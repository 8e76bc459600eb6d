import { type Kysely, sql } from "kysely";

/**
 * The table of attempts was `etl.sync_runs`, its id `run_id`, where a run is another thing
 * (`etl.runs.run_id`, and the table's own `run` column). It becomes `etl.attempts`, its id
 * `attempt_id`, its indexes, checks and identity named after it. Renaming keeps the rows, the
 * indexes and what depends on them (the views that read it follow by reference).
 *
 * In the same transaction `etl.sync_runs` becomes a view of the table under its old names, for a
 * release: the workers of the release before read and write through it (a view of one table's
 * columns takes inserts, updates and deletes, and the table's identity and defaults fill what they
 * leave out), and queries that name it still read. The view is granted what the table was, so a
 * worker running as a role of its own keeps what it could do.
 */

const INDEXES = ["later_syncs", "replay_source", "run", "running", "stream_partition"];
const CHECKS = ["kind_check", "status_check"];
/** The table's columns after its id, in their order: the view shows them as the table had them. */
const COLUMNS = [
  "stream",
  "partition",
  "started_at",
  "finished_at",
  "status",
  "requests",
  "rows_written",
  "error",
  "untyped_values",
  "kind",
  "rows_rejected",
  "warnings",
  "response_ids",
  "partition_data",
  "extracted_on",
  "replay_of",
  "runner",
  "closed_by",
  "failure_bodies",
  "failure_body",
  "pages",
  "run",
];

const DEPRECATED =
  "etl.attempts under the names it had before 2026-12-03 (attempt_id as run_id): kept for a release so that the workers of the release before, and queries naming it, still read and write. Use etl.attempts.";

/**
 * The comments of the warehouse's tables, views and columns that name `from` name `to` instead:
 * the id's whole name first, then the table's.
 */
async function renameInComments(
  db: Kysely<unknown>,
  from: readonly [string, string],
  to: readonly [string, string],
) {
  await sql`
    do $$
    declare
      r record;
      text text;
    begin
      for r in
        select c.oid::regclass::text as relation, c.relkind, a.attname, d.description
          from pg_description d
          join pg_class c on c.oid = d.objoid and d.classoid = 'pg_class'::regclass
          left join pg_attribute a on a.attrelid = c.oid and a.attnum = d.objsubid
         where d.description like ${sql.lit(`%${from[1]}%`)}
           and c.relnamespace::regnamespace::text in ('etl', 'analytics', 'history')
      loop
        text := replace(replace(r.description, ${sql.lit(from[0])}, ${sql.lit(to[0])}),
                        ${sql.lit(from[1])}, ${sql.lit(to[1])});
        if r.attname is not null then
          execute format('comment on column %s.%I is %L', r.relation, r.attname, text);
        elsif r.relkind = 'v' then
          execute format('comment on view %s is %L', r.relation, text);
        else
          execute format('comment on table %s is %L', r.relation, text);
        end if;
      end loop;
    end
    $$`.execute(db);
}

async function renameTable(db: Kysely<unknown>, from: string, to: string, id: [string, string]) {
  await sql`alter table ${sql.table(`etl.${from}`)} rename to ${sql.id(to)}`.execute(db);
  await sql`alter table ${sql.table(`etl.${to}`)} rename column ${sql.id(id[0])} to ${sql.id(id[1])}`.execute(
    db,
  );
  await sql`alter index ${sql.table(`etl.${from}_pkey`)} rename to ${sql.id(`${to}_pkey`)}`.execute(
    db,
  );
  for (const index of INDEXES) {
    await sql`alter index ${sql.table(`etl.${from}_${index}`)} rename to ${sql.id(`${to}_${index}`)}`.execute(
      db,
    );
  }
  for (const check of CHECKS) {
    await sql`alter table ${sql.table(`etl.${to}`)}
      rename constraint ${sql.id(`${from}_${check}`)} to ${sql.id(`${to}_${check}`)}`.execute(db);
  }
  await sql`alter sequence ${sql.table(`etl.${from}_${id[0]}_seq`)}
    rename to ${sql.id(`${to}_${id[1]}_seq`)}`.execute(db);
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await renameTable(db, "sync_runs", "attempts", ["run_id", "attempt_id"]);
  await renameInComments(
    db,
    ["etl.sync_runs.run_id", "etl.sync_runs"],
    ["etl.attempts.attempt_id", "etl.attempts"],
  );
  await sql`create view etl.sync_runs as
    select attempt_id as run_id, ${sql.join(COLUMNS.map((c) => sql.id(c)))} from etl.attempts`.execute(
    db,
  );
  await sql`comment on view etl.sync_runs is ${sql.lit(DEPRECATED)}`.execute(db);
  await sql`comment on column etl.attempts.attempt_id is ${sql.lit(
    "Identifier of the attempt (etl.schema_changes.attempt_id, history's attempt_id name it).",
  )}`.execute(db);
  // The view's columns say what the table's say (BI users read every column's comment), and it
  // is granted what the table is.
  await sql`
    do $$
    declare
      r record;
    begin
      for r in
        select a.attname, col_description(a.attrelid, a.attnum) as comment
          from pg_attribute a
         where a.attrelid = 'etl.attempts'::regclass and a.attnum > 0 and not a.attisdropped
           and a.attname <> 'attempt_id'
      loop
        execute format('comment on column etl.sync_runs.%I is %L', r.attname, r.comment);
      end loop;
      for r in
        select g.privilege_type,
               case g.grantee when 0 then 'public' else g.grantee::regrole::text end as grantee
          from pg_class c, aclexplode(c.relacl) g
         where c.oid = 'etl.attempts'::regclass
      loop
        execute format('grant %s on etl.sync_runs to %s', r.privilege_type, r.grantee);
      end loop;
    end
    $$`.execute(db);
  await sql`comment on column etl.sync_runs.run_id is ${sql.lit(
    "Identifier of the attempt: etl.attempts.attempt_id under its old name.",
  )}`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop view etl.sync_runs`.execute(db);
  await renameTable(db, "attempts", "sync_runs", ["attempt_id", "run_id"]);
  await renameInComments(
    db,
    ["etl.attempts.attempt_id", "etl.attempts"],
    ["etl.sync_runs.run_id", "etl.sync_runs"],
  );
  await sql`comment on column etl.sync_runs.run_id is ${sql.lit("Identifier of the attempt.")}`.execute(
    db,
  );
}
