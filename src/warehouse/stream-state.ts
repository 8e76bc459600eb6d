import { type Kysely, sql } from "kysely";
import type { Database } from "./schema.js";
import { storableTextOf } from "./storable-values.js";

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

/**
 * The keys of the stream's partitions that failed for good: their last attempt failed and names
 * no queue job that may attempt them again (see retry_job_id). Those whose failure no retry can
 * cure (failure_cause) only with `permanentToo`.
 */
export async function failedPartitions(
  db: Db,
  stream: string,
  permanentToo = false,
): Promise<Set<string>> {
  const rows = await db
    .selectFrom("etl.stream_state")
    .select("partition")
    .where("stream", "=", stream)
    .where("last_status", "=", "failed")
    .where("retry_job_id", "is", null)
    .$if(!permanentToo, (q) => q.where("failure_cause", "is", null))
    .execute();
  return new Set(rows.map((row) => row.partition));
}

/**
 * A stream's failed partitions: those failed for good (`permanent` of them for a cause no retry
 * can cure), and those whose job will try again.
 */
export interface FailureCounts {
  readonly failed: number;
  readonly permanent: number;
  readonly retrying: number;
}

/** Failed partitions of each of the streams; streams with none are left out. */
export async function failureCounts(
  db: Db,
  streams: readonly string[],
): Promise<Map<string, FailureCounts>> {
  const rows = await db
    .selectFrom("etl.stream_state")
    .select([
      "stream",
      sql<number>`count(*) filter (where retry_job_id is null)::int`.as("failed"),
      sql<number>`count(*) filter (where failure_cause is not null)::int`.as("permanent"),
      sql<number>`count(*) filter (where retry_job_id is not null)::int`.as("retrying"),
    ])
    .where(sql<boolean>`stream = any(${streams})`)
    .where("last_status", "=", "failed")
    .groupBy("stream")
    .execute();
  return new Map(
    rows.map(({ stream, failed, permanent, retrying }) => [
      stream,
      { failed, permanent, retrying },
    ]),
  );
}

/** A partition whose last record names the queue job that may attempt it again. */
export interface RetryMark {
  readonly stream: string;
  readonly partition: string;
  readonly jobId: string;
}

/** Every partition whose record names a job that may attempt it again. */
export async function retryMarks(db: Db): Promise<RetryMark[]> {
  const rows = await db
    .selectFrom("etl.stream_state")
    .select(["stream", "partition", "retry_job_id"])
    .where("retry_job_id", "is not", null)
    .execute();
  return rows.map((row) => ({
    stream: row.stream,
    partition: row.partition,
    jobId: row.retry_job_id ?? "",
  }));
}

/**
 * Forgets the marks of jobs that will attempt nothing more: a failure they leave is for good. A
 * mark some later attempt has replaced (another job, a success) is left as it is.
 */
export async function clearRetryMarks(db: Db, marks: readonly RetryMark[]): Promise<void> {
  if (marks.length === 0) return;
  await sql`
    update etl.stream_state s set retry_job_id = null
      from unnest(${marks.map((m) => m.stream)}::text[], ${marks.map((m) => m.partition)}::text[],
                  ${marks.map((m) => m.jobId)}::text[]) as m(stream, partition, job_id)
     where s.stream = m.stream and s.partition = m.partition and s.retry_job_id = m.job_id`.execute(
    db,
  );
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
    retry_job_id: null,
    failure_cause: null,
    dismissed_at: null,
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

/**
 * The statement that records what a replay found uncertain in a partition, its checkpoint and
 * success left as its sync set them: a reader fixed and replayed clears the sync's warnings.
 */
export function partitionRederived(
  db: Pick<Db, "updateTable">,
  { stream, partition, warnings = [] }: Omit<PartitionSuccess, "checkpoint">,
) {
  return db
    .updateTable("etl.stream_state")
    .set({ warnings: warnings.length > 0 ? JSON.stringify(warnings) : null })
    .where("stream", "=", stream)
    .where("partition", "=", partition)
    .where("last_status", "=", "succeeded");
}

/**
 * Records a failure; the checkpoint and last success of an earlier run are kept. `retryJobId`:
 * the queue job whose attempt this was, which may attempt the partition again; null when no
 * further attempt can come (a one-shot sync), which makes the failure final. `cause`: what a
 * failure no retry can cure met (permanentCause), which makes it final too.
 */
export async function markPartitionFailed(
  db: Db,
  stream: string,
  partition: string,
  error: string,
  retryJobId: string | null = null,
  cause: string | null = null,
): Promise<void> {
  const values = {
    last_status: "failed" as const,
    last_error: storableTextOf(error),
    retry_job_id: cause === null ? retryJobId : null,
    failure_cause: cause === null ? null : storableTextOf(cause),
    dismissed_at: null,
  };
  await db
    .insertInto("etl.stream_state")
    .values({ stream, partition, ...values, checkpoint: "{}" })
    .onConflict((oc) =>
      oc.columns(["stream", "partition"]).doUpdateSet({ ...values, last_attempt_at: new Date() }),
    )
    .execute();
}

/**
 * Closes the failures of these partitions that no job will attempt again: last_status becomes
 * 'dismissed', their last error is kept. A later attempt of one records its outcome as usual.
 */
export async function dismissFailures(
  db: Db,
  stream: string,
  partitions: readonly string[],
): Promise<number> {
  if (partitions.length === 0) return 0;
  const result = await db
    .updateTable("etl.stream_state")
    .set({ last_status: "dismissed", dismissed_at: new Date() })
    .where("stream", "=", stream)
    .where(sql<boolean>`partition = any(${partitions})`)
    .where("last_status", "=", "failed")
    .where("retry_job_id", "is", null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** A cause no retry can cure, and how many partitions of how many streams it failed for good. */
export interface PermanentFailure {
  readonly cause: string;
  readonly partitions: number;
  readonly streams: number;
}

/** The failures for good no retry can cure, one per cause, the most partitions first. */
export async function permanentFailures(db: Db): Promise<PermanentFailure[]> {
  const rows = await db
    .selectFrom("etl.stream_state")
    .select([
      sql<string>`failure_cause`.as("cause"),
      sql<number>`count(*)::int`.as("partitions"),
      sql<number>`count(distinct stream)::int`.as("streams"),
    ])
    .where("last_status", "=", "failed")
    .where("failure_cause", "is not", null)
    .groupBy("failure_cause")
    .orderBy(sql`count(*)`, "desc")
    .orderBy("failure_cause")
    .execute();
  return rows;
}
