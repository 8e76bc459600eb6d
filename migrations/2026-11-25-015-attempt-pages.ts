import { type Kysely, sql } from "kysely";

/**
 * The pages each attempt read. The stored responses alone do not say them: a page can need no
 * request (the tracked artists of an account with no streaming ids are read from configuration
 * and the catalogue alone), so it has no response, and a replay that knew only the responses
 * would read nothing there and delete every row the sync derived. Only adds: an older worker
 * leaves it null, and a replay of such an attempt deletes nothing.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table etl.sync_runs add column pages text[]`.execute(db);
  await sql`comment on column etl.sync_runs.pages is ${sql.lit(
    'The pages this attempt read, in order: each page\'s cursor as JSON, as in etl.responses.page ("null" for the first), including a page read with no response. etl replay reads exactly these pages again; null for an attempt recorded before they were, which a replay loads without deleting anything.',
  )}`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table etl.sync_runs drop column pages`.execute(db);
}
