import type { ColumnType, Generated } from "kysely";

/** Columns as Postgres returns them to node-postgres (numeric and bigint as exact text). */
type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;

/** What became of one attempt: see the comment on etl.attempts.status. */
export type AttemptStatus = "running" | "succeeded" | "failed" | "interrupted" | "abandoned";

export interface AttemptsTable {
  attempt_id: Generated<string>;
  stream: string;
  partition: string;
  started_at: Generated<Date>;
  finished_at: Timestamp | null;
  status: ColumnType<AttemptStatus, "running" | undefined, Exclude<AttemptStatus, "running">>;
  requests: Generated<number>;
  rows_written: ColumnType<string, number | undefined, number>;
  error: string | null;
  untyped_values: ColumnType<unknown, never, string | null>;
  kind: ColumnType<"sync" | "replay", "sync" | "replay" | undefined, never>;
  rows_rejected: ColumnType<number, never, number>;
  failure_bodies: ColumnType<number, never, number>;
  failure_body: ColumnType<string | null, never, string | null>;
  warnings: ColumnType<unknown, never, string | null>;
  response_ids: ColumnType<string[] | null, never, string[] | null>;
  pages: ColumnType<string[] | null, never, string[] | null>;
  partition_data: ColumnType<unknown, string | undefined, never>;
  extracted_on: ColumnType<string | null, string | undefined, never>;
  replay_of: ColumnType<string | null, string | undefined, never>;
  runner: ColumnType<string | null, string | undefined, never>;
  closed_by: ColumnType<string | null, never, string>;
  run: ColumnType<string | null, string | undefined, never>;
}

export interface StreamStateTable {
  stream: string;
  partition: string;
  checkpoint: ColumnType<unknown, string, string>;
  last_success_at: Timestamp | null;
  last_attempt_at: Generated<Date>;
  last_status: "succeeded" | "failed" | "dismissed";
  last_error: string | null;
  warnings: ColumnType<unknown, string | null | undefined, string | null>;
  retry_job_id: ColumnType<string | null, string | null | undefined, string | null>;
  failure_cause: ColumnType<string | null, string | null | undefined, string | null>;
  dismissed_at: ColumnType<Date | null, never, Date | null>;
}

export interface ResponsesTable {
  response_id: Generated<string>;
  stream: string;
  partition: string;
  page: string;
  part: number;
  operation: string;
  params: ColumnType<unknown, string, never>;
  status: number;
  fetched_at: Generated<Date>;
  body_sha256: ColumnType<Buffer, Buffer, never>;
  body: ColumnType<string, string | Buffer, never>;
}

export interface RejectedRecordsTable {
  stream: string;
  partition: string;
  record_sha256: ColumnType<Buffer, Buffer, never>;
  target_table: string;
  reason: string;
  record: ColumnType<unknown, string | null, string | null>;
  response_id: string | null;
  first_seen_at: Generated<Date>;
  last_seen_at: Timestamp;
}

export interface PageSizesTable {
  operation: string;
  cap: number | null;
  ending: number | null;
  learned_at: Generated<Date>;
}

/** Where a run stands: see the comment on etl.runs.status. */
export type RunStatus = "queued" | "running" | "succeeded" | "failed" | "interrupted" | "lost";

export interface StreamSettingsTable {
  stream: string;
  family: string;
  daily: boolean;
  first_day: ColumnType<string, string, string>;
  history_days: number | null;
  schedule_pattern: string | null;
  schedule_tz: string | null;
  schedule_interval_seconds: number | null;
  stale_after_seconds: number | null;
  written_at: Generated<Date>;
  written_by: string | null;
}

export interface RunsTable {
  run_id: string;
  kind: string;
  streams: string[];
  /** date: read as text (`range_from::text`), a Date would be local midnight. */
  range_from: ColumnType<unknown, string | null | undefined, never>;
  range_to: ColumnType<unknown, string | null | undefined, never>;
  queued_at: ColumnType<Date, Date | undefined, never>;
  queued_by: ColumnType<string | null, string | null | undefined, string | null>;
  started_at: ColumnType<Date | null, Date | undefined, Date | null>;
  finished_at: ColumnType<Date | null, Date | undefined, Date | null>;
  status: ColumnType<RunStatus, RunStatus | undefined, RunStatus>;
  error: ColumnType<string | null, string | null | undefined, string | null>;
  replaced_by: ColumnType<string | null, never, string>;
}

/** The tables the pipeline queries by name; streams write through the generic row writer. */
export interface Database {
  "etl.attempts": AttemptsTable;
  "etl.stream_state": StreamStateTable;
  "etl.responses": ResponsesTable;
  "etl.rejected_records": RejectedRecordsTable;
  "etl.page_sizes": PageSizesTable;
  "etl.runs": RunsTable;
  "etl.stream_settings": StreamSettingsTable;
}
