import { type Kysely, sql } from "kysely";

/**
 * The history's two indexes made cheap to write, for what is asked of them. Their upkeep was over
 * a third of what keeping a restated row's version cost: a B-tree on the key compares JSON at
 * every step of its descent, and one on (table, time) is kept in an order the table is written
 * in already.
 * - as_of asks for the versions that ended after a time: versions are appended as they end, so a
 *   block range index of seen_at finds them (a few bytes per 128 pages, nothing per row).
 * - The versions of one row are asked for by its key, whole (`key = '{"income_key": "…"}'`): a
 *   hash index answers equality, which is all a B-tree on JSON was used for, and writes a hash.
 * Older workers name neither index; the history is small (it grows with restatements only), so
 * building them holds its writers for moments.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`drop index history.row_versions_seen`.execute(db);
  await sql`create index row_versions_seen on history.row_versions using brin (seen_at)`.execute(
    db,
  );
  await sql`drop index history.row_versions_key`.execute(db);
  await sql`create index row_versions_key on history.row_versions using hash (key)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index history.row_versions_seen`.execute(db);
  await sql`create index row_versions_seen on history.row_versions (table_name, seen_at)`.execute(
    db,
  );
  await sql`drop index history.row_versions_key`.execute(db);
  await sql`create index row_versions_key on history.row_versions (table_name, key)`.execute(db);
}
