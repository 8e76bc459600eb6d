import { type Kysely, sql } from "kysely";

/**
 * An index of each partition's successful syncs by attempt, for the replay's question of every
 * sync it reads: does a later one of its partition qualify? Answered from the partition's own
 * entries after that sync, whatever statistics Postgres holds of etl.sync_runs: without them (a
 * warehouse just backfilled, or one whose autovacuum is off) the index by stream alone made that
 * question scan the stream's whole history for every sync. Only adds.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create index sync_runs_later_syncs on etl.sync_runs (stream, partition, run_id)
    where status = 'succeeded' and kind = 'sync'`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index etl.sync_runs_later_syncs`.execute(db);
}
