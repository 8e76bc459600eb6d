import { type Kysely, sql } from "kysely";
import { commentOn } from "./support/comment-on.js";

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create schema if not exists etl`.execute(db);
  await sql`comment on schema etl is 'The pipeline''s own state and run history (not business data).'`.execute(
    db,
  );

  await sql`
    create table etl.sync_runs (
      run_id bigint generated always as identity primary key,
      stream text not null,
      partition text not null,
      started_at timestamptz not null default now(),
      finished_at timestamptz,
      status text not null default 'running' check (status in ('running', 'succeeded', 'failed')),
      requests integer not null default 0,
      rows_written bigint not null default 0,
      error text
    )`.execute(db);
  await sql`create index sync_runs_stream_partition on etl.sync_runs (stream, partition, started_at desc)`.execute(
    db,
  );
  await commentOn(db, "etl.sync_runs", "One row per attempt to sync one partition of one stream.", {
    run_id: "Identifier of the attempt.",
    stream: "Stream name (e.g. trend_items); see docs/warehouse.md.",
    partition: "The slice of the stream this attempt synced, e.g. 2026-01-05|asset|stream.",
    started_at: "When the attempt started.",
    finished_at: "When it ended; null while running (or if the process died).",
    status: "running, succeeded or failed.",
    requests: "HTTP requests sent to the upstream by this attempt, retries included.",
    rows_written: "Rows inserted, updated or deleted; unchanged rows are not written.",
    error: "Why it failed (never contains credentials).",
  });

  await sql`
    create table etl.stream_state (
      stream text not null,
      partition text not null,
      checkpoint jsonb not null default '{}'::jsonb,
      last_success_at timestamptz,
      last_attempt_at timestamptz not null default now(),
      last_status text not null check (last_status in ('succeeded', 'failed')),
      last_error text,
      primary key (stream, partition)
    )`.execute(db);
  await commentOn(db, "etl.stream_state", "Where each partition of each stream stands.", {
    stream: "Stream name.",
    partition: "Partition key, as in etl.sync_runs.",
    checkpoint:
      "The stream's cursor, committed with the partition's last rows (e.g. the last day of a series).",
    last_success_at: "When the partition last synced completely.",
    last_attempt_at: "When the partition was last attempted.",
    last_status: "Outcome of the last attempt: succeeded or failed.",
    last_error: "Error of the last attempt when it failed.",
  });
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop schema etl cascade`.execute(db);
}
