import { type Kysely, sql } from "kysely";
import { commentOn } from "./support/comment-on.js";
import { commentOnView } from "./support/comment-on-view.js";

/**
 * What the configuration says of each stream, in the warehouse: its family, whether it is daily,
 * the first day it keeps, its schedule and how long it may go without a success. An analyst can
 * then tell, in SQL, which streams are stale and which days are missing, by the rule the alerts
 * use. Only adds: a table the worker (and `etl sync`) write, columns at the end of
 * analytics.stream_freshness (CREATE OR REPLACE keeps its grants), and a view.
 */

const SETTINGS_COLUMNS = {
  stream: "The stream.",
  family: "Its family: catalogue, trends, artist_stats or royalties (one schedule each).",
  daily:
    "Whether its partitions are days (sales trends, radio, charts): analytics.stream_missing_days lists the days never synced.",
  first_day: "start_date: the first day its daily partitions cover.",
  history_days:
    "For a stream that keeps only recent days (radio_history_days): how many days before today; null: every day from first_day.",
  schedule_pattern: "Its family's cron pattern; null when the family has no schedule.",
  schedule_tz: "The pattern's time zone; null without a schedule.",
  schedule_interval_seconds:
    "The longest gap between two scheduled runs of the family (seconds); null without a schedule.",
  stale_after_seconds:
    "How long the stream may go without a success before it is stale, as the EtlStreamStale alert says (seconds); null without a schedule (never stale).",
  written_at: "When the process below wrote this row, from its configuration.",
  written_by:
    "The process that wrote it (host and process id): a worker at its start, or `etl sync`.",
};

/** Today in UTC, the day the warehouse's "yesterday" is counted from. */
const TODAY = sql`(now() at time zone 'UTC')::date`;

/** etl.stream_state per stream: analytics.stream_freshness's columns before this migration. */
const PER_STREAM = sql`
  select stream,
         count(*)::integer as partitions,
         max(last_success_at) as last_success_at,
         max(case when checkpoint ->> 'day' ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}$'
                  then (checkpoint ->> 'day')::date end)
           filter (where last_status = 'succeeded') as last_day,
         count(*) filter (where last_status = 'failed' and retry_job_id is null)::integer
           as failed_partitions,
         coalesce(array_agg(partition order by partition)
                    filter (where last_status = 'failed' and retry_job_id is null), '{}')
           as failed_partition_keys,
         count(*) filter (where last_status = 'failed' and retry_job_id is not null)::integer
           as retrying_partitions
    from etl.stream_state
   group by stream`;

function daysBehind(row: string) {
  const r = sql.raw(row);
  return sql`case
      when ${r}.last_day is not null then ${TODAY} - 1 - ${r}.last_day
      when ${r}.last_success_at is not null
        then ${TODAY} - (${r}.last_success_at at time zone 'UTC')::date
    end as days_behind`;
}

/**
 * Stale as EtlStreamStale says: the last success older than the threshold; a stream tried and
 * never successful, once the worker has been up (since it wrote its settings) that long.
 */
const FRESHNESS = sql`
  select coalesce(st.stream, s.stream) as stream, coalesce(st.partitions, 0) as partitions,
         st.last_success_at, st.last_day, ${daysBehind("st")},
         coalesce(st.failed_partitions, 0) as failed_partitions,
         coalesce(st.failed_partition_keys, '{}') as failed_partition_keys,
         coalesce(st.retrying_partitions, 0) as retrying_partitions,
         s.family,
         s.schedule_pattern || ' ' || s.schedule_tz as schedule,
         s.stale_after_seconds,
         coalesce(st.stream is not null
                  and coalesce(st.last_success_at, s.written_at)
                        < now() - make_interval(secs => s.stale_after_seconds),
                  false) as stale,
         case when s.daily then (select count(*)::integer from analytics.stream_missing_days m
                                  where m.stream = s.stream) end as missing_days
    from (${PER_STREAM}) st
    full join etl.stream_settings s on s.stream = st.stream`;

const BEFORE = sql`
  select stream, partitions, last_success_at, last_day, ${daysBehind("per_stream")},
         failed_partitions, failed_partition_keys, retrying_partitions
    from (${PER_STREAM}) per_stream`;

const BEFORE_COLUMNS = {
  stream: "Stream name (e.g. trend_items; see docs/warehouse.md for the table each one fills).",
  partitions: "Partitions of the stream ever attempted (0: never run).",
  last_success_at: "When a partition of the stream last synced completely.",
  last_day:
    "For daily streams (sales trends, radio, charts): the latest day a partition synced completely; null for the others.",
  days_behind:
    "Days behind: for daily streams, from last_day to yesterday (UTC), 0 when current; for the others, days since last_success_at (UTC); null when never successful.",
  failed_partitions:
    "Partitions that failed for good: their last attempt failed and no further attempt is coming (etl retry-failed queues them; 0 when none).",
  failed_partition_keys: "Keys of those partitions, sorted (empty when none).",
  retrying_partitions:
    "Partitions whose last attempt failed while their queue job has attempts left: not failed for good yet.",
};

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table etl.stream_settings (
      stream text primary key,
      family text not null,
      daily boolean not null,
      first_day date not null,
      history_days integer,
      schedule_pattern text,
      schedule_tz text,
      schedule_interval_seconds double precision,
      stale_after_seconds double precision,
      written_at timestamptz not null default now(),
      written_by text
    )`.execute(db);
  await commentOn(
    db,
    "etl.stream_settings",
    "Each declared stream as the configuration sets it up: written by a worker when it starts (its schedules are the ones in force) and by `etl sync`. What analytics.stream_freshness and analytics.stream_missing_days read to say which streams are stale and which days are missing.",
    SETTINGS_COLUMNS,
  );

  await sql`
    create view analytics.stream_missing_days as
    select s.stream, s.family, d.day::date as day
      from etl.stream_settings s
     cross join lateral generate_series(
             greatest(s.first_day, ${TODAY} - coalesce(s.history_days, ${TODAY} - s.first_day)),
             ${TODAY} - 1, interval '1 day') as d(day)
     where s.daily
       and not exists (
             select 1 from etl.stream_state st
              where st.stream = s.stream
                and st.partition >= to_char(d.day, 'YYYY-MM-DD')
                and st.partition < to_char(d.day, 'YYYY-MM-DD') || '~'
                and st.last_success_at is not null)`.execute(db);
  await commentOnView(
    db,
    "analytics.stream_missing_days",
    "The days a daily stream should hold and never synced: from its first day (start_date, or the last radio_history_days) to yesterday (UTC), those with no partition that ever succeeded. A backfill over them fills them. One row per (stream, day).",
    {
      stream: "The daily stream (etl.stream_settings).",
      family: "Its family.",
      day: "A day with no partition of the stream ever synced.",
    },
  );

  await sql`create or replace view analytics.stream_freshness as ${FRESHNESS}`.execute(db);
  await commentOnView(
    db,
    "analytics.stream_freshness",
    "How fresh each stream is, as `etl status` shows it: from etl.stream_state, its last success, the latest day synced (daily streams), days behind, partitions failed for good and still retrying; from etl.stream_settings (what the worker's configuration says), its family, schedule, whether it is stale by the alerts' rule, and its days never synced. One row per stream declared or run. Readers need no access to the etl schema: the view reads it with its owner's rights.",
    {
      ...BEFORE_COLUMNS,
      family: "The stream's family (null for a stream no worker of this release declared).",
      schedule: "Its family's cron pattern and time zone; null when it has no schedule.",
      stale_after_seconds:
        "How long it may go without a success before it is stale (seconds): the EtlStreamStale alert's threshold; null without a schedule.",
      stale:
        "True when it has run and its last success is older than stale_after_seconds (or it never succeeded): the rule of the EtlStreamStale alert.",
      missing_days:
        "For a daily stream: days from its first day to yesterday never synced (analytics.stream_missing_days lists them); null for the others.",
    },
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop view analytics.stream_freshness`.execute(db);
  await sql`create view analytics.stream_freshness as ${BEFORE}`.execute(db);
  await commentOnView(
    db,
    "analytics.stream_freshness",
    "How fresh each stream is, as `etl status` shows it, from etl.stream_state: last success, the latest day synced (daily streams), days behind, partitions failed for good and partitions still retrying. One row per stream that has run at least once. Readers need no access to the etl schema: the view reads it with its owner's rights.",
    BEFORE_COLUMNS,
  );
  await sql`drop view analytics.stream_missing_days`.execute(db);
  await sql`drop table etl.stream_settings`.execute(db);
}
