import { type Kysely, sql } from "kysely";
import { commentOnView } from "./support/comment-on-view.js";

/**
 * Runs as records: every attempt names the run it was part of, foreground syncs and replays are
 * runs too, and the run history is a view. Only adds: a nullable column that an older worker
 * leaves null (its attempts belong to no run), an index, two views.
 */

const RUN =
  "The run the attempt was part of (etl.runs.run_id, as the commands print it): a backfill's, a retry's or a scheduled run's job, or a foreground `etl sync` or `etl replay`. Null for an attempt of a release that did not record it.";

/** A run's attempts per stream: `last` is each partition's last attempt in the run. */
const RUN_STREAMS = sql`
  select a.run as run_id, a.stream,
         count(distinct a.partition)::bigint as partitions,
         count(*)::bigint as attempts,
         count(*) filter (where a.last and a.status = 'failed')::bigint as failed,
         count(*) filter (where a.last and a.status in ('interrupted', 'abandoned', 'running'))::bigint
           as unfinished,
         coalesce(sum(a.requests), 0)::bigint as requests,
         coalesce(sum(a.rows_written), 0)::bigint as rows_written,
         coalesce(sum(a.rows_rejected), 0)::bigint as rows_rejected,
         count(*) filter (where a.last and a.status = 'succeeded' and a.warnings is not null)::bigint
           as warned,
         coalesce(sum(a.failure_bodies), 0)::bigint as failure_bodies,
         min(a.started_at) as first_started_at,
         max(a.finished_at) as last_finished_at,
         coalesce(sum(extract(epoch from a.finished_at - a.started_at)), 0)::double precision
           as attempt_seconds
    from (select s.*,
                 row_number() over (partition by s.run, s.stream, s.partition
                                    order by s.run_id desc) = 1 as last
            from etl.sync_runs s
           where s.run is not null) a
   group by a.run, a.stream`;

const COUNTS = {
  partitions: "Distinct partitions the run attempted.",
  attempts: "Attempts (etl.sync_runs rows): a partition retried within the run counts each time.",
  failed: "Partitions whose last attempt in the run failed.",
  unfinished:
    "Partitions whose last attempt in the run did not end: interrupted (a shutdown), abandoned (its process died), or still running.",
  requests: "Upstream requests, over every attempt.",
  rows_written: "Rows written, over every attempt.",
  rows_rejected: "Records quarantined in etl.rejected_records, over every attempt.",
  warned:
    "Partitions whose last attempt succeeded with warnings (a list that may hold more, values not typed...): see etl.sync_runs.warnings.",
  failure_bodies:
    "Answers whose body declared failure (retried, never loaded), over every attempt.",
};

const RUN_STREAMS_COLUMNS = {
  run_id: "The run (etl.runs.run_id; etl.sync_runs.run).",
  stream: "The stream.",
  ...COUNTS,
  first_started_at: "When the run's first attempt of the stream started.",
  last_finished_at: "When its last attempt of the stream ended (null while one runs).",
  attempt_seconds:
    "Seconds spent in the stream's attempts, added up (attempts run side by side, so more than the run's wall time).",
};

const RUN_HISTORY_COLUMNS = {
  run_id: "The run's id, as the commands print it (etl.runs.run_id).",
  kind: "schedule, backfill, retry (queued for the workers), sync or replay (run in the foreground).",
  status:
    "queued, running, succeeded (it ran to its end; some partitions may have failed: see failed), failed (the run itself failed: see error), interrupted (a foreground run stopped by a signal), lost (its job vanished from the queue).",
  range_from: "First day of its daily streams' range; null: from start_date, or incremental.",
  range_to: "Last day; null: up to yesterday (UTC) when it planned.",
  streams: "The streams it syncs.",
  queued_by: "The process that queued or ran it (host and process id); null for a scheduled run.",
  queued_at: "When it was queued (a foreground run: when it started).",
  started_at: "When a worker (or the command) started it.",
  finished_at: "When it ended; null while it runs.",
  wall_seconds: "finished_at - started_at in seconds; null while it runs.",
  error: "Why the run itself failed; null otherwise.",
  ...COUNTS,
};

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table etl.sync_runs add column run text`.execute(db);
  await sql`comment on column etl.sync_runs.run is ${sql.lit(RUN)}`.execute(db);
  // What `etl runs show` and the views read: one run's attempts, never the whole table.
  await sql`create index sync_runs_run on etl.sync_runs (run) where run is not null`.execute(db);

  await sql`create view analytics.run_streams as ${RUN_STREAMS}`.execute(db);
  await commentOnView(
    db,
    "analytics.run_streams",
    "What each run did per stream, from its attempts (etl.sync_runs): the table `etl runs show <run>` prints. One row per (run_id, stream) the run attempted.",
    RUN_STREAMS_COLUMNS,
  );
  await sql`
    create view analytics.run_history as
    select r.run_id, r.kind, r.status, r.range_from, r.range_to, r.streams, r.queued_by,
           r.queued_at, r.started_at, r.finished_at,
           extract(epoch from r.finished_at - r.started_at)::double precision as wall_seconds,
           r.error,
           coalesce(sum(s.partitions), 0)::bigint as partitions,
           coalesce(sum(s.attempts), 0)::bigint as attempts,
           coalesce(sum(s.failed), 0)::bigint as failed,
           coalesce(sum(s.unfinished), 0)::bigint as unfinished,
           coalesce(sum(s.requests), 0)::bigint as requests,
           coalesce(sum(s.rows_written), 0)::bigint as rows_written,
           coalesce(sum(s.rows_rejected), 0)::bigint as rows_rejected,
           coalesce(sum(s.warned), 0)::bigint as warned,
           coalesce(sum(s.failure_bodies), 0)::bigint as failure_bodies
      from etl.runs r
      left join analytics.run_streams s on s.run_id = r.run_id
     group by r.run_id`.execute(db);
  await commentOnView(
    db,
    "analytics.run_history",
    "Every run recorded in etl.runs, newest last, with what its attempts did in all (analytics.run_streams per stream): `etl runs` lists the same. One row per run.",
    RUN_HISTORY_COLUMNS,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop view analytics.run_history, analytics.run_streams`.execute(db);
  await sql`alter table etl.sync_runs drop column run`.execute(db);
}
