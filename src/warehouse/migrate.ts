import path from "node:path";
import { fileURLToPath } from "node:url";
import { type MigrationProvider, type MigrationResult, Migrator, sql } from "kysely";
import { LockWaitError } from "../errors.js";
import type { Warehouse } from "./database.js";
import { describeHolders, type LockHolder, tableLockHolders } from "./lock-holders.js";
import {
  acquireMigrationLock,
  isLockTimeout,
  type LockWaitOptions,
  releaseMigrationLock,
} from "./migration-lock.js";
import { FolderMigrationProvider } from "./migration-provider.js";

const MIGRATIONS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../migrations");

export interface MigrationOutcome {
  readonly applied: readonly string[];
  /**
   * Migrations a newer release applied, unknown to this one: it runs on their schema unchanged
   * (migrations after 2026-11-23-010 only add: see docs/operations.md), as when a deployment
   * is rolled back.
   */
  readonly newer: readonly string[];
}

/**
 * How long a migration waits for a lock, by default: long enough for a worker's partition
 * transaction to commit, short enough that a session left open (a BI tool's, a stuck process's)
 * is named within a minute instead of holding every command that migrates first.
 */
export const DEFAULT_LOCK_WAIT_MS = 60_000;

export interface MigrateOptions {
  /**
   * The longest wait for the migration lock, and for each lock a migration's statement needs:
   * past it, the migration gives up (LockWaitError) naming the sessions holding it.
   */
  readonly lockWaitMs?: number;
  /** Called before waiting for the migration lock, with who holds it. */
  readonly onLockWait?: (holders: readonly LockHolder[], waitMs: number) => void;
  /** The migrations (default: the release's migrations folder). */
  readonly provider?: MigrationProvider & { names(): Promise<string[]> };
}

/** The migrations the warehouse has applied, oldest first (none before the first migration). */
async function appliedMigrations(db: Warehouse): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`
    select name from etl.kysely_migration order by name`
    .execute(db)
    .catch((error: unknown) => {
      // 42P01: the schema is not there yet, before the first migrate.
      if ((error as { code?: string }).code === "42P01") return { rows: [] };
      throw error;
    });
  return rows.map((row) => row.name);
}

/**
 * The release's migrations the warehouse has not applied yet, oldest first: what `migrate` would
 * apply. Reads only (a command that changes nothing asks this instead of migrating).
 */
export async function pendingMigrations(
  db: Warehouse,
  provider: MigrationProvider & { names(): Promise<string[]> } = new FolderMigrationProvider(
    MIGRATIONS,
  ),
): Promise<string[]> {
  const applied = await appliedMigrations(db);
  return (await provider.names()).filter((name) => !applied.includes(name));
}

/**
 * Applies every pending migration. The migration lock (Kysely's own) makes two processes
 * migrating at once apply each migration exactly once; neither it nor a table a migration alters
 * is waited for longer than `lockWaitMs`. A warehouse a newer release has migrated further is left
 * as it is (Kysely would refuse to start): the release rolled back to keeps running on it, as its
 * workers did while the newer ones rolled out.
 */
export async function migrateToLatest(
  db: Warehouse,
  options: MigrateOptions = {},
): Promise<MigrationOutcome> {
  const provider = options.provider ?? new FolderMigrationProvider(MIGRATIONS);
  const known = await provider.names();
  const applied = await appliedMigrations(db);
  const newer = applied.filter((name) => !known.includes(name));
  if (newer.length > 0) {
    const missing = known.filter((name) => !applied.includes(name));
    if (missing.length > 0) {
      throw new Error(
        `the warehouse has migrations this release does not know (${newer.join(", ")}) and lacks some it has (${missing.join(", ")}): deploy the release that applied them`,
      );
    }
    return { applied: [], newer };
  }
  // Every command migrates first: an up-to-date warehouse costs one query, not the migrator's
  // lock and catalogue introspection (a tenth of a second of a cron's sync).
  if (known.every((name) => applied.includes(name))) return { applied: [], newer: [] };
  const lock: LockWaitOptions = {
    waitMs: options.lockWaitMs ?? DEFAULT_LOCK_WAIT_MS,
    ...(options.onLockWait ? { onWait: options.onLockWait } : {}),
  };
  // One session for the lock and the migrations: Kysely's lock request then finds it held by
  // its own session, and the statements run under the session's lock_timeout.
  return db.connection().execute(async (conn) => {
    await acquireMigrationLock(conn, lock);
    try {
      return await runMigrations(conn, provider, lock.waitMs);
    } finally {
      await releaseMigrationLock(conn);
    }
  });
}

async function runMigrations(
  conn: Warehouse,
  provider: MigrationProvider,
  waitMs: number,
): Promise<MigrationOutcome> {
  const migrator = new Migrator({ db: conn, provider, migrationTableSchema: "etl" });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r: MigrationResult) => r.status === "Error")?.migrationName;
    if (isLockTimeout(error)) {
      // Postgres does not say whose lock it was: the sessions holding the warehouse's tables
      // now include the one that held it.
      const holders = await tableLockHolders(conn);
      throw new LockWaitError(
        `a table lock of migration ${failed ?? "(unknown)"}`,
        waitMs,
        describeHolders(holders),
        holders.map((holder) => holder.pid),
      );
    }
    throw new Error(`migration ${failed ?? "(unknown)"} failed: ${(error as Error).message}`, {
      cause: error,
    });
  }
  return { applied: (results ?? []).map((r) => r.migrationName), newer: [] };
}
