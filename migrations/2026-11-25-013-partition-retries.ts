import { type Kysely, sql } from "kysely";
import { commentOnView } from "./support/comment-on-view.js";

/**
 * Whether a failed partition will be attempted again. A worker's attempt fails as one of its
 * queue job's `job_attempts`; until the job has none left, the failure is not final, and neither
 * `etl retry-failed` nor the counts of failed partitions may treat it as such. The attempt names
 * its job in etl.stream_state; the job's state in the queue says whether another attempt comes,
 * so the answer survives a worker that dies between recording the failure and its job's next
 * move. Only adds: an older worker writes no job, and its failures count as final, as before.
 */

/**
 * analytics.stream_freshness: `failed` filters the failures its counts and keys hold; `retrying`
 * adds the count of those not final yet (it reads retry_job_id, so the view depends on it).
 */
function freshnessView(failed: string, retrying: boolean) {
  const failedOnly = sql.raw(failed);
  const retryingColumn = retrying ? sql`, retrying_partitions` : sql``;
  const retryingCount = retrying
    ? sql`, count(*) filter (where last_status = 'failed' and retry_job_id is not null)::integer
             as retrying_partitions`
    : sql``;
  return sql`
    select stream, partitions, last_success_at, last_day,
           case
             when last_day is not null then (now() at time zone 'UTC')::date - 1 - last_day
             when last_success_at is not null
               then (now() at time zone 'UTC')::date - (last_success_at at time zone 'UTC')::date
           end as days_behind,
           failed_partitions, failed_partition_keys${retryingColumn}
      from (
        select stream,
               count(*)::integer as partitions,
               max(last_success_at) as last_success_at,
               max(case when checkpoint ->> 'day' ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}$'
                        then (checkpoint ->> 'day')::date end)
                 filter (where last_status = 'succeeded') as last_day,
               count(*) filter (where ${failedOnly})::integer as failed_partitions,
               coalesce(array_agg(partition order by partition)
                          filter (where ${failedOnly}), '{}') as failed_partition_keys
               ${retryingCount}
          from etl.stream_state
         group by stream
      ) per_stream`;
}

const FRESHNESS_COLUMNS = {
  stream: "Stream name (e.g. trend_items; see docs/warehouse.md for the table each one fills).",
  partitions: "Partitions of the stream ever attempted.",
  last_success_at: "When a partition of the stream last synced completely.",
  last_day:
    "For daily streams (sales trends, radio, charts): the latest day a partition synced completely; null for the others.",
  days_behind:
    "Days behind: for daily streams, from last_day to yesterday (UTC), 0 when current; for the others, days since last_success_at (UTC); null when never successful.",
};

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table etl.stream_state add column retry_job_id text`.execute(db);
  await sql`comment on column etl.stream_state.retry_job_id is ${sql.lit(
    "When the last attempt failed as one of a worker job's attempts: that queue job, which may attempt the partition again; the job's state in the queue says whether it will (cleared once it has no attempt left, or is gone). Null otherwise: a failure with no job is final (failed for good).",
  )}`.execute(db);
  // Read whole by every run and `etl status`: a few rows among every partition ever synced.
  await sql`create index stream_state_retry_jobs on etl.stream_state (retry_job_id)
    where retry_job_id is not null`.execute(db);

  await sql`create or replace view analytics.stream_freshness as ${freshnessView(
    "last_status = 'failed' and retry_job_id is null",
    true,
  )}`.execute(db);
  await commentOnView(
    db,
    "analytics.stream_freshness",
    "How fresh each stream is, as `etl status` shows it, from etl.stream_state: last success, the latest day synced (daily streams), days behind, partitions failed for good and partitions still retrying. One row per stream that has run at least once. Readers need no access to the etl schema: the view reads it with its owner's rights.",
    {
      ...FRESHNESS_COLUMNS,
      failed_partitions:
        "Partitions that failed for good: their last attempt failed and no further attempt is coming (etl retry-failed queues them; 0 when none).",
      failed_partition_keys: "Keys of those partitions, sorted (empty when none).",
      retrying_partitions:
        "Partitions whose last attempt failed while their queue job has attempts left: not failed for good yet.",
    },
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  // A view's columns cannot be removed in place; the comments and grants go with it.
  await sql`drop view analytics.stream_freshness`.execute(db);
  await sql`create view analytics.stream_freshness as ${freshnessView(
    "last_status = 'failed'",
    false,
  )}`.execute(db);
  await commentOnView(
    db,
    "analytics.stream_freshness",
    "How fresh each stream is, as `etl status` shows it, from etl.stream_state: last success, the latest day synced (daily streams), days behind, and failed partitions. One row per stream that has run at least once. Readers need no access to the etl schema: the view reads it with its owner's rights.",
    {
      ...FRESHNESS_COLUMNS,
      failed_partitions: "Partitions whose last attempt failed (0 when all are fine).",
      failed_partition_keys: "Keys of those partitions, sorted (empty when none).",
    },
  );
  await sql`drop index etl.stream_state_retry_jobs`.execute(db);
  await sql`alter table etl.stream_state drop column retry_job_id`.execute(db);
}
