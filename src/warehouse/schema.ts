import type { ColumnType, Generated } from "kysely";

/** Columns as Postgres returns them to node-postgres (numeric and bigint as exact text). */
type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;

export interface SyncRunsTable {
  run_id: Generated<string>;
  stream: string;
  partition: string;
  started_at: Generated<Date>;
  finished_at: Timestamp | null;
  status: ColumnType<
    "running" | "succeeded" | "failed",
    "running" | undefined,
    "succeeded" | "failed"
  >;
  requests: Generated<number>;
  rows_written: ColumnType<string, number | undefined, number>;
  error: string | null;
  untyped_values: ColumnType<unknown, never, string | null>;
}

export interface StreamStateTable {
  stream: string;
  partition: string;
  checkpoint: ColumnType<unknown, string, string>;
  last_success_at: Timestamp | null;
  last_attempt_at: Generated<Date>;
  last_status: "succeeded" | "failed";
  last_error: string | null;
}

/** The tables the pipeline queries by name; streams write through the generic row writer. */
export interface Database {
  "etl.sync_runs": SyncRunsTable;
  "etl.stream_state": StreamStateTable;
}
