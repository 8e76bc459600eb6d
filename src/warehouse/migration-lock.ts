import { sql } from "kysely";
import { LockWaitError } from "../errors.js";
import type { Warehouse } from "./database.js";
import { advisoryLockHolders, describeHolders, type LockHolder } from "./lock-holders.js";

/**
 * The key of the session advisory lock Kysely's Migrator takes on Postgres (kysely 0.28,
 * PostgresAdapter.acquireMigrationLock), so this lock and an older release's migrate exclude
 * each other. Kysely waits for it up to an hour; taking it first, with a bound, on the connection
 * the Migrator then uses, makes Kysely's own request return at once (a session's advisory locks
 * stack).
 */
export const MIGRATION_LOCK_KEY = "3853314791062309107";

const SQLSTATE_LOCK_NOT_AVAILABLE = "55P03";

export interface LockWaitOptions {
  /** The longest wait for a lock; then the migration gives up, naming who holds it. */
  readonly waitMs: number;
  /** Called once, before waiting, with who holds the lock. */
  readonly onWait?: (holders: readonly LockHolder[], waitMs: number) => void;
}

/** Whether `error` is Postgres giving up on a lock after lock_timeout. */
export function isLockTimeout(error: unknown): boolean {
  return (error as { code?: string } | undefined)?.code === SQLSTATE_LOCK_NOT_AVAILABLE;
}

/**
 * Takes the migration lock on the session `conn` is bound to, waiting at most `waitMs`, and leaves
 * `lock_timeout` at `waitMs` for the session, so the migrations' own statements wait no longer
 * for a table's lock either. `releaseMigrationLock` undoes both.
 */
export async function acquireMigrationLock(
  conn: Warehouse,
  options: LockWaitOptions,
): Promise<void> {
  await sql`select set_config('lock_timeout', ${`${options.waitMs}ms`}, false)`.execute(conn);
  try {
    const { rows } = await sql<{ locked: boolean }>`
      select pg_try_advisory_lock(${MIGRATION_LOCK_KEY}::bigint) as locked`.execute(conn);
    if (!rows[0]?.locked) await waitForMigrationLock(conn, options);
  } catch (error) {
    // The connection goes back to the pool: no later query of it may inherit the bound. The
    // error that got here says more than one from the reset would.
    await sql`reset lock_timeout`.execute(conn).catch(() => undefined);
    throw error;
  }
}

/** Names who holds the lock, then waits for it under the session's lock_timeout. */
async function waitForMigrationLock(conn: Warehouse, options: LockWaitOptions) {
  options.onWait?.(await advisoryLockHolders(conn, MIGRATION_LOCK_KEY), options.waitMs);
  try {
    await sql`select pg_advisory_lock(${MIGRATION_LOCK_KEY}::bigint)`.execute(conn);
  } catch (error) {
    if (!isLockTimeout(error)) throw error;
    const holders = await advisoryLockHolders(conn, MIGRATION_LOCK_KEY);
    throw new LockWaitError(
      "the migration lock",
      options.waitMs,
      describeHolders(holders),
      holders.map((holder) => holder.pid),
    );
  }
}

/** Lets go of the migration lock and of the session's lock_timeout (the connection is pooled). */
export async function releaseMigrationLock(conn: Warehouse): Promise<void> {
  await sql`select pg_advisory_unlock(${MIGRATION_LOCK_KEY}::bigint)`.execute(conn);
  await sql`reset lock_timeout`.execute(conn);
}
