import { type Kysely, sql } from "kysely";

/** What etl.analytics_builds says each object was last built from: its definition's hash. */
export async function builtDefinitions(trx: Kysely<unknown>): Promise<Map<string, string>> {
  const { rows } = await sql<{ object: string; definition_sha256: string }>`
    select object, definition_sha256 from etl.analytics_builds`.execute(trx);
  return new Map(rows.map((row) => [row.object, row.definition_sha256]));
}

/** Records that `object` was built, in the caller's transaction, from the definition `hash`. */
export async function recordBuilt(trx: Kysely<unknown>, object: string, hash: string) {
  await sql`
    insert into etl.analytics_builds (object, definition_sha256) values (${object}, ${hash})
    on conflict (object) do update
      set definition_sha256 = excluded.definition_sha256, built_at = now()`.execute(trx);
}
