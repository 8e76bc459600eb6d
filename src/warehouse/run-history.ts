import { type Kysely, sql } from "kysely";
import type { Database } from "./schema.js";

type Db = Kysely<Database>;

/** What a run's attempts did, in all or for one stream (analytics.run_streams). */
export interface RunCounts {
  readonly partitions: number;
  readonly attempts: number;
  readonly failed: number;
  /** Partitions whose last attempt did not end (interrupted, abandoned, running). */
  readonly unfinished: number;
  readonly requests: number;
  readonly rowsWritten: number;
  readonly rowsRejected: number;
  readonly warned: number;
  readonly failureBodies: number;
}

/** A run as analytics.run_history shows it. */
export interface RunHistoryEntry extends RunCounts {
  readonly runId: string;
  readonly kind: string;
  readonly status: string;
  readonly rangeFrom: string | null;
  readonly rangeTo: string | null;
  readonly streams: readonly string[];
  readonly queuedBy: string | null;
  readonly queuedAt: Date;
  readonly startedAt: Date | null;
  readonly finishedAt: Date | null;
  readonly wallSeconds: number | null;
  readonly error: string | null;
}

/** A stream's line of a run (analytics.run_streams). */
export interface RunStreamEntry extends RunCounts {
  readonly stream: string;
  readonly firstStartedAt: Date | null;
  readonly lastFinishedAt: Date | null;
}

const COUNTS = sql`partitions::int, attempts::int, failed::int, unfinished::int,
  requests::text, rows_written::text, rows_rejected::text,
  warned::int, failure_bodies::text`;

interface CountRow {
  partitions: number;
  attempts: number;
  failed: number;
  unfinished: number;
  requests: string;
  rows_written: string;
  rows_rejected: string;
  warned: number;
  failure_bodies: string;
}

function counts(row: CountRow): RunCounts {
  return {
    partitions: row.partitions,
    attempts: row.attempts,
    failed: row.failed,
    unfinished: row.unfinished,
    requests: Number(row.requests),
    rowsWritten: Number(row.rows_written),
    rowsRejected: Number(row.rows_rejected),
    warned: row.warned,
    failureBodies: Number(row.failure_bodies),
  };
}

interface HistoryRow extends CountRow {
  run_id: string;
  kind: string;
  status: string;
  range_from: string | null;
  range_to: string | null;
  streams: string[];
  queued_by: string | null;
  queued_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
  wall_seconds: number | null;
  error: string | null;
}

function historyEntry(row: HistoryRow): RunHistoryEntry {
  return {
    ...counts(row),
    runId: row.run_id,
    kind: row.kind,
    status: row.status,
    rangeFrom: row.range_from,
    rangeTo: row.range_to,
    streams: row.streams,
    queuedBy: row.queued_by,
    queuedAt: row.queued_at,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
    wallSeconds: row.wall_seconds,
    error: row.error,
  };
}

const HISTORY = sql`select run_id, kind, status, range_from::text, range_to::text, streams,
  queued_by, queued_at, started_at, finished_at, wall_seconds, error, ${COUNTS}
  from analytics.run_history`;

/** The latest runs, newest first (by when they were queued). */
export async function recentRuns(db: Db, limit: number): Promise<RunHistoryEntry[]> {
  const { rows } =
    await sql<HistoryRow>`${HISTORY} order by queued_at desc, run_id limit ${limit}`.execute(db);
  return rows.map(historyEntry);
}

/** The run, if etl.runs records it. */
export async function runHistoryOf(db: Db, runId: string): Promise<RunHistoryEntry | undefined> {
  const { rows } = await sql<HistoryRow>`${HISTORY} where run_id = ${runId}`.execute(db);
  return rows.map(historyEntry)[0];
}

/** What the run did per stream, in stream order. */
export async function runStreamsOf(db: Db, runId: string): Promise<RunStreamEntry[]> {
  const { rows } = await sql<
    CountRow & { stream: string; first_started_at: Date | null; last_finished_at: Date | null }
  >`select stream, first_started_at, last_finished_at, ${COUNTS}
      from analytics.run_streams where run_id = ${runId} order by stream`.execute(db);
  return rows.map((row) => ({
    ...counts(row),
    stream: row.stream,
    firstStartedAt: row.first_started_at,
    lastFinishedAt: row.last_finished_at,
  }));
}
