import { type Kysely, sql } from "kysely";
import { addDays, daysFrom, utcDayOf } from "../time/calendar.js";
import { rejectedCounts } from "./rejected-records.js";
import type { Database } from "./schema.js";

export interface StreamOverview {
  readonly stream: string;
  readonly partitions: number;
  readonly lastSuccessAt: Date | null;
  /** The latest day a daily partition of the stream synced, when the stream is daily. */
  readonly lastDay: string | null;
  /** Partitions that failed for good: their last attempt failed, and no job will try again. */
  readonly failed: readonly { partition: string; error: string | null; at: Date }[];
  /** Partitions whose last attempt failed while their job has attempts left. */
  readonly retrying: number;
  /** Records of the stream in quarantine (etl.rejected_records). */
  readonly rejected: number;
  /** Partitions whose last success left a list uncertain (possibly truncated, none found...). */
  readonly warned: readonly string[];
  /**
   * Partitions whose latest load (a sync, or a replay since) left values or records its readers
   * could not read (untyped, unmatched): kept in raw until a fixed reader is replayed.
   */
  readonly unread: readonly string[];
  /** Answers of the last 7 days that declared failure (each retried, none loaded). */
  readonly failureBodies: number;
}

/** Warnings of what a reader could not read, as opposed to what a list leaves uncertain. */
const UNREAD_KINDS = new Set(["untyped", "unmatched"]);

/** Whether warnings hold one of what a reader could not read (`unread`) or of the others. */
function warnsOf(warnings: unknown, unread: boolean): boolean {
  return (
    Array.isArray(warnings) &&
    warnings.some(
      (warning) => UNREAD_KINDS.has(String((warning as { kind?: unknown }).kind)) === unread,
    )
  );
}

/**
 * Where every stream stands, from etl.stream_state as recorded: a retry mark whose job has since
 * finished or gone counts as retrying until settleRetries (src/jobs) clears it.
 */
export async function streamOverviews(db: Kysely<Database>): Promise<StreamOverview[]> {
  const rows = await db
    .selectFrom("etl.stream_state")
    .select([
      "stream",
      sql<number>`count(*)::int`.as("partitions"),
      sql<Date | null>`max(last_success_at)`.as("last_success_at"),
      sql<string | null>`max(checkpoint->>'day') filter (where last_status = 'succeeded')`.as(
        "last_day",
      ),
      sql<number>`count(*) filter (where last_status = 'failed' and retry_job_id is not null)::int`.as(
        "retrying",
      ),
    ])
    .groupBy("stream")
    .orderBy("stream")
    .execute();
  const failures = await failedForGood(db);
  const warned = await warnedPartitions(db);
  const rejected = await rejectedCounts(db);
  const failureBodies = await recentFailureBodies(db);
  const warnedOf = (stream: string, unread: boolean) =>
    warned
      .filter((w) => w.stream === stream && warnsOf(w.warnings, unread))
      .map((w) => w.partition);
  return rows.map((row) => ({
    stream: row.stream,
    partitions: row.partitions,
    lastSuccessAt: row.last_success_at,
    lastDay: row.last_day,
    failed: failures
      .filter((f) => f.stream === row.stream)
      .map((f) => ({ partition: f.partition, error: f.last_error, at: f.last_attempt_at })),
    retrying: row.retrying,
    rejected: rejected.get(row.stream) ?? 0,
    warned: warnedOf(row.stream, false),
    unread: warnedOf(row.stream, true),
    failureBodies: failureBodies.find((f) => f.stream === row.stream)?.answers ?? 0,
  }));
}

/** Partitions whose last attempt failed with no job left to try again, by stream and partition. */
function failedForGood(db: Kysely<Database>) {
  return db
    .selectFrom("etl.stream_state")
    .select(["stream", "partition", "last_error", "last_attempt_at"])
    .where("last_status", "=", "failed")
    .where("retry_job_id", "is", null)
    .orderBy("stream")
    .orderBy("partition")
    .execute();
}

/** Partitions whose last success left warnings, of either sort (see warnsOf). */
function warnedPartitions(db: Kysely<Database>) {
  return db
    .selectFrom("etl.stream_state")
    .select(["stream", "partition", "warnings"])
    .where("last_status", "=", "succeeded")
    .where("warnings", "is not", null)
    .orderBy("stream")
    .orderBy("partition")
    .execute();
}

/** Per stream, the answers of the last 7 days' syncs that declared failure. */
function recentFailureBodies(db: Kysely<Database>) {
  return db
    .selectFrom("etl.attempts")
    .select(["stream", sql<number>`sum(failure_bodies)::int`.as("answers")])
    .where("kind", "=", "sync")
    .where("failure_bodies", ">", 0)
    .where(sql<boolean>`started_at >= now() - interval '7 days'`)
    .groupBy("stream")
    .execute();
}

/**
 * How many days behind a stream is: for daily streams, from the last day synced to yesterday
 * (0 = current); for the others, since the last success; null when it never succeeded.
 */
export function daysBehind(status: StreamOverview, today: string): number | null {
  if (status.lastDay) return daysFrom(status.lastDay, addDays(today, -1));
  if (status.lastSuccessAt) return daysFrom(utcDayOf(status.lastSuccessAt), today);
  return null;
}
