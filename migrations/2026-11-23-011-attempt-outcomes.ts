import { type Kysely, sql } from "kysely";
import { commentOn } from "./support/comment-on.js";

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table etl.sync_runs
    drop constraint sync_runs_status_check,
    add constraint sync_runs_status_check
      check (status in ('running', 'succeeded', 'failed', 'interrupted', 'abandoned')),
    add column runner text,
    add column closed_by text`.execute(db);
  // Partitions picked up again look for the running attempts of their own partition only.
  await sql`create index sync_runs_running on etl.sync_runs (stream, partition)
    where status = 'running'`.execute(db);
  await commentOn(
    db,
    "etl.sync_runs",
    "One row per attempt to sync (or replay) one partition of one stream.",
    {
      status:
        "running; succeeded; failed (the partition could not be synced, see error); interrupted (stopped by a shutdown or a refused credential and handed back, not a failure of the partition); abandoned (it ended unrecorded, its process dead or Postgres failing: closed when the partition was picked up again).",
      finished_at:
        "When it ended; for an abandoned attempt, when it was found abandoned. Null while running.",
      runner: "The process that ran the attempt: host name and process id.",
      closed_by:
        "For an abandoned attempt: the process that found it so (host name and process id), when it picked the partition up again.",
    },
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`update etl.sync_runs set status = 'failed'
    where status in ('interrupted', 'abandoned')`.execute(db);
  await sql`drop index etl.sync_runs_running`.execute(db);
  await sql`alter table etl.sync_runs
    drop column closed_by,
    drop column runner,
    drop constraint sync_runs_status_check,
    add constraint sync_runs_status_check
      check (status in ('running', 'succeeded', 'failed'))`.execute(db);
}
