import { type Kysely, sql } from "kysely";
import type { Database } from "./schema.js";

type Db = Kysely<Database>;

/** Checkpoints of those of the given partitions whose last attempt succeeded, by partition key. */
export async function succeededCheckpoints(
  db: Db,
  stream: string,
  partitions: readonly string[],
): Promise<Map<string, unknown>> {
  if (partitions.length === 0) return new Map();
  const rows = await db
    .selectFrom("etl.stream_state")
    .select(["partition", "checkpoint"])
    .where("stream", "=", stream)
    .where(sql<boolean>`partition = any(${partitions})`)
    .where("last_status", "=", "succeeded")
    .execute();
  return new Map(rows.map((row) => [row.partition, row.checkpoint]));
}

/** When each of the given partitions whose last attempt succeeded last succeeded. */
export async function lastSuccesses(
  db: Db,
  stream: string,
  partitions: readonly string[],
): Promise<Map<string, Date>> {
  if (partitions.length === 0) return new Map();
  const rows = await db
    .selectFrom("etl.stream_state")
    .select(["partition", "last_success_at"])
    .where("stream", "=", stream)
    .where(sql<boolean>`partition = any(${partitions})`)
    .where("last_status", "=", "succeeded")
    .execute();
  return new Map(
    rows.flatMap((row) => (row.last_success_at ? [[row.partition, row.last_success_at]] : [])),
  );
}

/** The keys of the stream's partitions whose last attempt failed. */
export async function failedPartitions(db: Db, stream: string): Promise<Set<string>> {
  const rows = await db
    .selectFrom("etl.stream_state")
    .select("partition")
    .where("stream", "=", stream)
    .where("last_status", "=", "failed")
    .execute();
  return new Set(rows.map((row) => row.partition));
}

/** How many partitions of each of the streams last failed; streams with none are left out. */
export async function failedPartitionCounts(
  db: Db,
  streams: readonly string[],
): Promise<Map<string, number>> {
  const rows = await db
    .selectFrom("etl.stream_state")
    .select(["stream", sql<number>`count(*)::int`.as("failed")])
    .where(sql<boolean>`stream = any(${streams})`)
    .where("last_status", "=", "failed")
    .groupBy("stream")
    .execute();
  return new Map(rows.map((row) => [row.stream, row.failed]));
}

/** A partition's success: its new checkpoint and what it left uncertain. */
export interface PartitionSuccess {
  readonly stream: string;
  readonly partition: string;
  readonly checkpoint: unknown;
  readonly warnings?: readonly unknown[];
}

/** Records success; called in the transaction that writes the partition's last rows. */
export async function markPartitionSucceeded(db: Db, success: PartitionSuccess): Promise<void> {
  await partitionSucceeded(db, success).execute();
}

/** The statement that records success, for a caller that runs it with another (one round trip). */
export function partitionSucceeded(db: Pick<Db, "insertInto">, success: PartitionSuccess) {
  const { stream, partition, checkpoint, warnings = [] } = success;
  const values = {
    checkpoint: JSON.stringify(checkpoint ?? {}),
    last_status: "succeeded" as const,
    warnings: warnings.length > 0 ? JSON.stringify(warnings) : null,
  };
  return db
    .insertInto("etl.stream_state")
    .values({ stream, partition, ...values, last_success_at: new Date(), last_error: null })
    .onConflict((oc) =>
      oc.columns(["stream", "partition"]).doUpdateSet({
        ...values,
        last_success_at: new Date(),
        last_attempt_at: new Date(),
        last_error: null,
      }),
    );
}

/** Records a failure; the checkpoint and last success of an earlier run are kept. */
export async function markPartitionFailed(
  db: Db,
  stream: string,
  partition: string,
  error: string,
): Promise<void> {
  await db
    .insertInto("etl.stream_state")
    .values({ stream, partition, last_status: "failed", last_error: error, checkpoint: "{}" })
    .onConflict((oc) =>
      oc.columns(["stream", "partition"]).doUpdateSet({
        last_status: "failed",
        last_error: error,
        last_attempt_at: new Date(),
      }),
    )
    .execute();
}
