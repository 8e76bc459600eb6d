import { type Kysely, sql } from "kysely";
import { commentOn } from "./support/comment-on.js";

/**
 * The runs: a backfill, a retry or a scheduled run, as the queue knows it by its job, recorded in
 * the warehouse too, so that a run Redis lost (its data lost or flushed) is found and can be
 * queued again instead of vanishing. A new table only: an older worker neither reads nor writes
 * it, and the runs it processes are not recorded (a command of this release records those it
 * queues). kind and status take no check: later kinds (a foreground sync, a replay) and statuses
 * come without dropping one.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table etl.runs (
      run_id text primary key,
      kind text not null,
      streams text[] not null,
      range_from date,
      range_to date,
      queued_at timestamptz not null default now(),
      queued_by text,
      started_at timestamptz,
      finished_at timestamptz,
      status text not null default 'queued',
      error text,
      replaced_by text
    )`.execute(db);
  // What `etl status` looks up in the queue: the runs not finished, never the history.
  await sql`create index runs_unfinished on etl.runs (queued_at)
    where status in ('queued', 'running')`.execute(db);
  // What `etl status` lists and `etl requeue --lost` queues again.
  await sql`create index runs_lost on etl.runs (queued_at)
    where status = 'lost' and replaced_by is null`.execute(db);
  await commentOn(
    db,
    "etl.runs",
    "One row per run queued for the workers: a backfill, a retry of failed partitions, or a scheduled run. A command records the run it queues as it queues it; a run a job scheduler queued is recorded when a worker starts it. The queue (Redis) runs it; this row says that it was asked for, so a run Redis lost is listed by `etl status` and queued again by `etl requeue`.",
    {
      run_id:
        "The run's queue job id, as the commands print it: run-<uuid> for a backfill or a retry, repeat:<scheduler>:<epoch ms> for a scheduled run.",
      kind: "schedule, backfill or retry (a retry plans only the partitions that failed for good).",
      streams: "The streams the run syncs, in the order they were asked for.",
      range_from:
        "First day of the daily streams' range, inclusive; null: from start_date (or, for a scheduled run, incrementally).",
      range_to:
        "Last day of the daily streams' range, inclusive; null: up to yesterday (UTC) when the run plans.",
      queued_at: "When the run was queued (for a scheduled run: when it was due).",
      queued_by:
        "The process that queued it (host and process id); null for a scheduled run (its job scheduler, named in run_id, queued it).",
      started_at: "When a worker first started the run; null while it waits in the queue.",
      finished_at:
        "When the run ended: its job completed or failed for good, or it was found lost; null while queued or running.",
      status:
        "queued; running (a worker started it: it plans its partitions and waits for them); succeeded (its job completed: every partition it planned ran, some may have failed, see etl.sync_runs and etl.stream_state); failed (its job failed with no attempt left, see error); lost (queued or running, its job was found gone from the queue, as when Redis lost its data: `etl requeue` queues it again).",
      error: "Why the run itself failed (not one of its partitions); null otherwise.",
      replaced_by:
        "For a lost run: the run that `etl requeue` queued in its place (the same kind, streams and range), or the identical run already queued that it joined; null while not queued again.",
    },
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table etl.runs`.execute(db);
}
