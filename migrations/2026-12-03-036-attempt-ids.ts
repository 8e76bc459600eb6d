import { type Kysely, sql } from "kysely";

/**
 * The attempt that made a schema change was named `run_id` (`etl.schema_changes`), where a run is
 * another thing (`etl.runs.run_id`). It gets an `attempt_id`, filled for every row; the old column
 * stays, the same value, for a release: the workers of the release before write it, and BI queries
 * may name it. A trigger fills either from the other, whichever of them a writer sets. Only adds.
 */

const DEPRECATED =
  "The same id as attempt_id, under the name it had before 2026-12-03: kept for a release so that queries naming it still read. Use attempt_id.";

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table etl.schema_changes add column attempt_id text`.execute(db);
  await sql`update etl.schema_changes set attempt_id = run_id`.execute(db);
  await sql`
    create function etl.schema_changes_attempt_id() returns trigger language plpgsql as $$
    begin
      new.attempt_id := coalesce(new.attempt_id, new.run_id);
      new.run_id := new.attempt_id;
      return new;
    end
    $$`.execute(db);
  await sql`
    create trigger attempt_id before insert on etl.schema_changes
    for each row execute function etl.schema_changes_attempt_id()`.execute(db);
  await sql`alter table etl.schema_changes alter column attempt_id set not null`.execute(db);
  await sql`create index schema_changes_by_attempt on etl.schema_changes (attempt_id)`.execute(db);

  await sql`comment on column etl.schema_changes.attempt_id is ${sql.lit(
    "The attempt that made the change (its row of etl.sync_runs).",
  )}`.execute(db);
  await sql`comment on column etl.schema_changes.run_id is ${sql.lit(DEPRECATED)}`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop trigger attempt_id on etl.schema_changes`.execute(db);
  await sql`drop function etl.schema_changes_attempt_id()`.execute(db);
  await sql`alter table etl.schema_changes drop column attempt_id`.execute(db);
  await sql`comment on column etl.schema_changes.run_id is ${sql.lit(
    "The attempt that made the change (etl.sync_runs.run_id).",
  )}`.execute(db);
}
