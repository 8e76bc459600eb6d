import { type Kysely, sql } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table etl.sync_runs add column untyped_values jsonb`.execute(db);
  await sql`comment on column etl.sync_runs.untyped_values is ${sql.lit(
    "Values the upstream sent that a typed column could not hold (they are kept in the row's raw JSON and the column is null): one entry per field, [{field, expected, count, examples}], most frequent first; null when every value was typed.",
  )}`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table etl.sync_runs drop column untyped_values`.execute(db);
}
