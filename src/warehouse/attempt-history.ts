// What the attempts recorded say, read for the reports: what needs attention, what a stream's
// attempts cost, how they ended day by day. The attempt's own life is in attempts.ts.
import { type Kysely, sql } from "kysely";
import type { AttemptStatus, Database } from "./schema.js";

type Db = Kysely<Database>;

/** What the syncs of these streams since `since` left to look at. */
export async function attentionSince(
  db: Db,
  streams: readonly string[],
  since: Date,
): Promise<{ warned: number; rejected: number }> {
  const row = await db
    .selectFrom("etl.attempts")
    .select([
      sql<number>`count(*) filter (where warnings is not null)::int`.as("warned"),
      sql<number>`coalesce(sum(rows_rejected), 0)::int`.as("rejected"),
    ])
    .where("kind", "=", "sync")
    .where("started_at", ">=", since)
    .where(sql<boolean>`stream = any(${streams})`)
    .executeTakeFirstOrThrow();
  return { warned: row.warned, rejected: row.rejected };
}

/** What the latest successful sync attempts of a stream cost: the basis of an estimate. */
export interface RequestHistory {
  readonly attempts: number;
  readonly requests: number;
}

/** Attempts read per stream: enough for an average, few enough to follow the upstream's drift. */
const HISTORY_ATTEMPTS = 1_000;

/** Requests of each stream's latest successful sync attempts (replays send none), by stream. */
export async function requestHistory(
  db: Db,
  streams: readonly string[],
): Promise<Map<string, RequestHistory>> {
  const { rows } = await sql<{ stream: string; attempts: number; requests: number }>`
    select stream, count(*)::int as attempts, sum(requests)::int as requests
    from (
      select stream, requests,
             row_number() over (partition by stream order by attempt_id desc) as recent
      from etl.attempts
      where kind = 'sync' and status = 'succeeded' and stream = any(${streams})
    ) latest
    where recent <= ${HISTORY_ATTEMPTS}
    group by stream`.execute(db);
  return new Map(rows.map(({ stream, ...history }) => [stream, history]));
}

/** Attempts started on one day (UTC) by one stream that ended one way. */
export interface DailyAttempts {
  readonly stream: string;
  readonly day: string;
  readonly status: AttemptStatus;
  readonly attempts: number;
}

/** Sync attempts per stream, day and outcome since `since` (a day, UTC): a run's recent history. */
export async function attemptsByDay(db: Db, since: string): Promise<DailyAttempts[]> {
  const { rows } = await sql<DailyAttempts>`
    select stream, to_char(started_at at time zone 'UTC', 'YYYY-MM-DD') as day, status,
           count(*)::int as attempts
    from etl.attempts
    where kind = 'sync' and started_at >= ${since}::timestamp at time zone 'UTC'
    group by 1, 2, 3
    order by 1, 2, 3`.execute(db);
  return rows;
}
