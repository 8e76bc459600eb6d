import { type Kysely, sql } from "kysely";

/**
 * A failure the same request would meet again (a 404 for an artist the upstream does not know,
 * a 400 or 422 for a parameter it refuses) is told from one a retry may cure, so that its
 * partitions are reported once per cause, not retried, and left out of `etl retry-failed`
 * unless asked. And a failure can be dismissed by the operator (`etl dismiss-failed`): a
 * partition the configuration no longer plans would otherwise stay failed for ever. Only adds:
 * an older worker writes no cause, and reads a dismissed partition as neither succeeded nor
 * failed.
 */

const FAILURE_CAUSE =
  "When the last attempt failed in a way the same request would meet again (a 4xx such as a 404 for an unknown artist): what it met, the same text for every partition it failed, so that they are reported once. Null for a failure a retry may cure, and for any other status.";
const DISMISSED_AT =
  "When `etl dismiss-failed` closed this partition's failure (last_status = 'dismissed'); null otherwise. Its last_error is kept.";
const LAST_STATUS =
  "Outcome of the last attempt: succeeded or failed; dismissed when the operator closed a failure (etl dismiss-failed) that no run will retry.";
const LAST_STATUS_BEFORE = "Outcome of the last attempt: succeeded or failed.";

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table etl.stream_state
              add column failure_cause text,
              add column dismissed_at timestamptz,
              drop constraint stream_state_last_status_check,
              add constraint stream_state_last_status_check
                check (last_status in ('succeeded', 'failed', 'dismissed'))`.execute(db);
  await sql`comment on column etl.stream_state.failure_cause is ${sql.lit(FAILURE_CAUSE)}`.execute(
    db,
  );
  await sql`comment on column etl.stream_state.dismissed_at is ${sql.lit(DISMISSED_AT)}`.execute(
    db,
  );
  await sql`comment on column etl.stream_state.last_status is ${sql.lit(LAST_STATUS)}`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  // A dismissed failure is a failure to a release that knows no dismissal.
  await sql`update etl.stream_state set last_status = 'failed' where last_status = 'dismissed'`.execute(
    db,
  );
  await sql`alter table etl.stream_state
              drop constraint stream_state_last_status_check,
              add constraint stream_state_last_status_check
                check (last_status in ('succeeded', 'failed')),
              drop column dismissed_at,
              drop column failure_cause`.execute(db);
  await sql`comment on column etl.stream_state.last_status is ${sql.lit(LAST_STATUS_BEFORE)}`.execute(
    db,
  );
}
