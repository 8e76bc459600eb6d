import { createHash } from "node:crypto";
import { type Kysely, type RawBuilder, sql } from "kysely";
import { canonicalJson } from "../json/canonical-json.js";
import type { Database } from "./schema.js";
import { storableJsonText } from "./storable-values.js";

type Db = Kysely<Database>;

/** A record that yielded no storable row, and why. */
export interface Rejection {
  readonly table: string;
  readonly reason: string;
  readonly record: unknown;
  readonly responseId: string | null;
}

/** The identity of a rejected record: the same record is one quarantine row however often seen. */
export function rejectionHash(rejection: Pick<Rejection, "record">): Buffer {
  return createHash("sha256").update(canonicalJson(rejection.record)).digest();
}

/** Adds records to the quarantine, or marks them seen again. */
export async function quarantine(
  db: Db,
  stream: string,
  partition: string,
  rejections: readonly Rejection[],
): Promise<void> {
  const unique = new Map<string, Rejection & { hash: Buffer }>();
  for (const rejection of rejections) {
    const hash = rejectionHash(rejection);
    unique.set(`${rejection.table}\u0000${hash.toString("hex")}`, { ...rejection, hash });
  }
  if (unique.size === 0) return;
  await db
    .insertInto("etl.rejected_records")
    .values(
      [...unique.values()].map((r) => ({
        stream,
        partition,
        record_sha256: r.hash,
        target_table: r.table,
        reason: r.reason,
        // What jsonb cannot hold is replaced, the rest kept: the record is the quarantine's point.
        record: storableJsonText(r.record ?? null),
        response_id: r.responseId,
        last_seen_at: new Date(),
      })),
    )
    .onConflict((oc) =>
      oc.columns(["stream", "partition", "record_sha256", "target_table"]).doUpdateSet((eb) => ({
        reason: eb.ref("excluded.reason"),
        response_id: eb.ref("excluded.response_id"),
        last_seen_at: eb.ref("excluded.last_seen_at"),
      })),
    )
    .execute();
}

/**
 * The delete that releases a partition's quarantined records other than `keep` (hashes): a load
 * that derived the partition's whole state again found them storable, or no longer received them.
 * It runs in the statement closing the partition, a round trip fewer for every partition.
 */
export function quarantineRelease(
  stream: string,
  partition: string,
  keep: readonly Buffer[],
): RawBuilder<unknown> {
  return sql`delete from etl.rejected_records
    where stream = ${stream} and partition = ${partition}
      and not (record_sha256 = any(${keep}::bytea[]))`;
}

/** Quarantined records per stream. */
export async function rejectedCounts(db: Db): Promise<Map<string, number>> {
  const rows = await db
    .selectFrom("etl.rejected_records")
    .select(["stream", sql<number>`count(*)::int`.as("records")])
    .groupBy("stream")
    .execute();
  return new Map(rows.map((row) => [row.stream, row.records]));
}
