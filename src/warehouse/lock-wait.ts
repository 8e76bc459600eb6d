import { setTimeout as sleep } from "node:timers/promises";
import { type Kysely, sql } from "kysely";

/** How long a change waits for readers to let go of what it changes, and how often it tries. */
export interface SchemaLockWait {
  readonly lockTimeoutMs: number;
  readonly attempts: number;
}

export const SCHEMA_LOCK_WAIT: SchemaLockWait = { lockTimeoutMs: 1_000, attempts: 20 };

/** Postgres's SQLSTATEs of a lock not granted in time, and of a deadlock it broke. */
const LOCK_NOT_AVAILABLE = "55P03";
const DEADLOCK_DETECTED = "40P01";

/**
 * Runs `change` in a transaction of its own whose lock waits last `lockTimeoutMs` at most, so that
 * the work queued behind it never waits longer than that: a reader or writer holding what it
 * changes is waited for again, with a growing pause, up to `attempts` times; then `busy` says what
 * to throw. One change of `subject` at a time, waited for beside it: the processes that ask for the
 * same change at once find it made.
 */
export async function withLockWait<T>(
  db: Kysely<unknown>,
  subject: string,
  wait: SchemaLockWait,
  change: (trx: Kysely<unknown>) => Promise<T>,
  busy: (attempts: number, cause: unknown) => Error,
): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await db.transaction().execute(async (trx) => {
        await sql`select pg_advisory_xact_lock(hashtext(${`music-etl:${subject}`}))`.execute(trx);
        await sql`select set_config('lock_timeout', ${`${wait.lockTimeoutMs}ms`}, true)`.execute(
          trx,
        );
        return change(trx);
      });
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (code !== LOCK_NOT_AVAILABLE && code !== DEADLOCK_DETECTED) throw error;
      if (attempt >= wait.attempts) throw busy(attempt, error);
      await sleep(Math.min((wait.lockTimeoutMs / 2) * attempt, 5_000));
    }
  }
}
