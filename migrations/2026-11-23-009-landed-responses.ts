import { type Kysely, sql } from "kysely";
import { commentOn } from "./support/comment-on.js";

/** lz4 when the server was built with it (Postgres 14+ usually is), else the default pglz. */
async function compressWithLz4(db: Kysely<unknown>, table: string, column: string) {
  await sql`
    do $$ begin
      execute ${sql.lit(`alter table ${table} alter column ${column} set compression lz4`)};
    exception when feature_not_supported or invalid_parameter_value then null;
    end $$`.execute(db);
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table etl.responses (
      response_id bigint generated always as identity primary key,
      stream text not null,
      partition text not null,
      page text not null,
      part smallint not null,
      operation text not null,
      params jsonb not null,
      status smallint not null,
      fetched_at timestamptz not null default now(),
      body_sha256 bytea not null,
      body text not null
    )`.execute(db);
  await compressWithLz4(db, "etl.responses", "body");
  // One row per distinct content of one page of one partition: an unchanged response is found
  // here and referenced again rather than stored twice.
  await sql`
    create unique index responses_content on etl.responses
      (stream, partition, page, part, body_sha256)`.execute(db);
  await sql`create index responses_fetched_at on etl.responses (fetched_at)`.execute(db);
  await commentOn(
    db,
    "etl.responses",
    "Every successful upstream response, stored as received (the extract stage): the typed tables are derived from these rows, and `etl replay` derives them again without a request. A response equal to one stored for the same page of the same partition is not stored again.",
    {
      response_id:
        "Identifier of the response; etl.sync_runs.response_ids lists those an attempt read.",
      stream: "Stream name.",
      partition: "Partition key, as in etl.sync_runs.",
      page: "The page's cursor as JSON: null for the first page, then an offset, a page number or a next link.",
      part: "Order of the response within its page (a page of catalogue artists also looks up each artist's statistics id).",
      operation: "The upstream operation (e.g. trends.list).",
      params: "The operation's parameters as sent (never the credential).",
      status: "HTTP status of the answer.",
      fetched_at: "When this content was first received.",
      body_sha256: "SHA-256 of the body text.",
      body: "The body exactly as received (JSON text), compressed by Postgres.",
    },
  );

  await sql`
    create table etl.rejected_records (
      stream text not null,
      partition text not null,
      record_sha256 bytea not null,
      target_table text not null,
      reason text not null,
      record jsonb,
      response_id bigint,
      first_seen_at timestamptz not null default now(),
      last_seen_at timestamptz not null default now(),
      primary key (stream, partition, record_sha256, target_table)
    )`.execute(db);
  await commentOn(
    db,
    "etl.rejected_records",
    "Quarantine: upstream records that yielded no storable row (a key value missing, an item that is not an object). Nothing is dropped silently: each is kept here with its reason until a load (a sync of a replaced list, or `etl replay`) stores it.",
    {
      stream: "Stream name.",
      partition: "Partition key, as in etl.sync_runs.",
      record_sha256:
        "SHA-256 of the record's canonical JSON: the same record is one row however often it is seen.",
      target_table: "The table the record was meant for.",
      reason: "Why no row could be stored.",
      record: "The record as received.",
      response_id: "The latest response it was read from (etl.responses).",
      first_seen_at: "When it was first rejected.",
      last_seen_at: "When it was last rejected.",
    },
  );

  await sql`alter table etl.sync_runs
    add column kind text not null default 'sync' check (kind in ('sync', 'replay')),
    add column rows_rejected integer not null default 0,
    add column warnings jsonb,
    add column response_ids bigint[],
    add column partition_data jsonb,
    add column extracted_on date,
    add column replay_of bigint`.execute(db);
  await sql`create index sync_runs_replay_source on etl.sync_runs (stream, run_id)
    where status = 'succeeded' and kind = 'sync'`.execute(db);
  await commentOn(
    db,
    "etl.sync_runs",
    "One row per attempt to sync (or replay) one partition of one stream.",
    {
      kind: "sync: the partition was fetched from the upstream; replay: it was loaded again from stored responses (etl replay), with no request.",
      rows_rejected: "Records that yielded no storable row (see etl.rejected_records).",
      warnings:
        "What this attempt could not be sure of, e.g. a response saying the list holds more than was read, or a response whose list could not be found: [{kind, message}]; null when none.",
      response_ids: "The stored responses this attempt read, in page order (etl.responses).",
      partition_data:
        "The partition as the run planned it (its days, windows, artists), for replay.",
      extracted_on: "The run date (UTC) of the extraction: snapshot rows of this attempt carry it.",
      replay_of: "For a replay: the sync attempt whose responses were loaded again.",
    },
  );

  await sql`alter table etl.stream_state add column warnings jsonb`.execute(db);
  await sql`comment on column etl.stream_state.warnings is ${sql.lit(
    "Warnings of the last successful attempt (see etl.sync_runs.warnings); null when it had none.",
  )}`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table etl.stream_state drop column warnings`.execute(db);
  await sql`drop index etl.sync_runs_replay_source`.execute(db);
  await sql`alter table etl.sync_runs
    drop column kind, drop column rows_rejected, drop column warnings, drop column response_ids,
    drop column partition_data, drop column extracted_on, drop column replay_of`.execute(db);
  await sql`drop table etl.rejected_records`.execute(db);
  await sql`drop table etl.responses`.execute(db);
}
