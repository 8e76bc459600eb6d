import { createHash } from "node:crypto";
import { type Kysely, sql } from "kysely";
import type { Database } from "./schema.js";

type Db = Kysely<Database>;

/**
 * One response to land: where it belongs, what was asked, and the body as received (its text, or
 * that text's UTF-8 bytes: stored alike). Only data is landed, and it stays as the upstream sent
 * it (no secret redacted from it): a replay must read exactly what was read. Answers about
 * failures never land; the HTTP client redacts the key from those.
 */
export interface ResponseToLand {
  readonly page: string;
  readonly part: number;
  readonly operation: string;
  readonly params: unknown;
  readonly status: number;
  readonly text: string | Buffer;
}

/** A landed response as the load stage reads it again. */
export interface StoredResponse {
  readonly responseId: string;
  readonly page: string;
  readonly part: number;
  readonly operation: string;
  readonly params: Record<string, unknown>;
  readonly status: number;
  readonly text: string;
}

/** The digest of a body: of its text's UTF-8 bytes, so a text and its bytes have the same. */
function sha256(text: string | Buffer): Buffer {
  return createHash("sha256").update(text).digest();
}

/** A response as landResponses keys it: where it belongs in its partition, and its digest. */
interface KeyedResponse {
  readonly page: string;
  readonly part: number;
  readonly body_sha256: Buffer;
}

const identity = (row: KeyedResponse) =>
  `${row.page}\u0000${row.part}\u0000${row.body_sha256.toString("hex")}`;

/**
 * Lands a partition's responses and returns their ids, in the order given. A response equal to
 * one already stored for the same page of the partition is not stored again: its id is reused,
 * so a re-sync of unchanged data adds no row. A partition that ran before (`expectNew` false)
 * asks which it holds first and sends only the others' bodies: a re-sync of a year's account
 * otherwise sends Postgres some 100 MB of bodies it already has.
 */
export async function landResponses(
  db: Db,
  stream: string,
  partition: string,
  responses: readonly ResponseToLand[],
  expectNew = true,
): Promise<string[]> {
  if (responses.length === 0) return [];
  const rows = responses.map((response) => ({
    stream,
    partition,
    page: response.page,
    part: response.part,
    operation: response.operation,
    params: JSON.stringify(response.params),
    status: response.status,
    body_sha256: sha256(response.text),
    // Bytes go to Postgres in binary format, which a text column reads as UTF-8 text.
    body: response.text,
  }));
  const ids = expectNew ? new Map<string, string>() : await storedIds(db, stream, partition, rows);
  const unstored = rows.filter((row) => !ids.has(identity(row)));
  if (unstored.length > 0) {
    const inserted = await db
      .insertInto("etl.responses")
      .values(unstored)
      .onConflict((oc) =>
        oc.columns(["stream", "partition", "page", "part", "body_sha256"]).doNothing(),
      )
      .returning(["response_id", "page", "part", "body_sha256"])
      .execute();
    for (const row of inserted) ids.set(identity(row), row.response_id);
  }
  // Stored by another attempt meanwhile, or (expected new) before.
  const missing = unstored.filter((row) => !ids.has(identity(row)));
  for (const [key, id] of await storedIds(db, stream, partition, missing)) ids.set(key, id);
  return rows.map((row) => {
    const id = ids.get(identity(row));
    if (id === undefined) throw new Error(`response of ${stream} ${partition} was not landed`);
    return id;
  });
}

/** The ids of those of `rows` the partition already holds, by identity. */
async function storedIds(
  db: Db,
  stream: string,
  partition: string,
  rows: readonly KeyedResponse[],
): Promise<Map<string, string>> {
  if (rows.length === 0) return new Map();
  const stored = await db
    .selectFrom("etl.responses")
    .select(["response_id", "page", "part", "body_sha256"])
    .where("stream", "=", stream)
    .where("partition", "=", partition)
    .where(
      sql<boolean>`(page, part, body_sha256) in (${sql.join(
        rows.map((row) => sql`(${row.page}, ${row.part}, ${row.body_sha256})`),
      )})`,
    )
    .execute();
  return new Map(stored.map((row) => [identity(row), row.response_id]));
}

/** Stored responses by id, in the order of `ids`; ids no longer stored (pruned) are left out. */
export async function storedResponses(db: Db, ids: readonly string[]): Promise<StoredResponse[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .selectFrom("etl.responses")
    .select(["response_id", "page", "part", "operation", "params", "status", "body"])
    .where(sql<boolean>`response_id = any(${ids}::bigint[])`)
    .execute();
  const byId = new Map(rows.map((row) => [row.response_id, row]));
  return ids.flatMap((id) => {
    const row = byId.get(id);
    return row
      ? [
          {
            responseId: row.response_id,
            page: row.page,
            part: row.part,
            operation: row.operation,
            params: row.params as Record<string, unknown>,
            status: row.status,
            text: row.body,
          },
        ]
      : [];
  });
}

/**
 * Deletes responses first received more than `keepDays` days ago, except those the latest
 * successful sync of their partition read: every partition keeps what its rows were last
 * derived from. Returns the number deleted.
 */
export async function pruneResponses(db: Db, keepDays: number): Promise<number> {
  const result = await sql`
    with latest as (
      select distinct on (stream, partition) response_ids
        from etl.attempts
       where kind = 'sync' and status = 'succeeded'
       order by stream, partition, attempt_id desc
    ), kept as (
      select unnest(response_ids) as response_id from latest
    )
    delete from etl.responses r
     where r.fetched_at < now() - make_interval(days => ${keepDays})
       and not exists (select 1 from kept where kept.response_id = r.response_id)`.execute(db);
  return Number(result.numAffectedRows ?? 0);
}
