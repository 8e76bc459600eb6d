import path from "node:path";
import { fileURLToPath } from "node:url";
import { type MigrationResult, Migrator, sql } from "kysely";
import type { Warehouse } from "./database.js";
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
 * Applies every pending migration. Kysely's migrator holds a lock row for the duration, so two
 * processes migrating at once apply each migration exactly once. A warehouse a newer release has
 * migrated further is left as it is (Kysely would refuse to start): the release rolled back to
 * keeps running on it, as its workers did while the newer ones rolled out.
 */
export async function migrateToLatest(db: Warehouse): Promise<MigrationOutcome> {
  const provider = new FolderMigrationProvider(MIGRATIONS);
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
  const migrator = new Migrator({ db, provider, migrationTableSchema: "etl" });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r: MigrationResult) => r.status === "Error")?.migrationName;
    throw new Error(`migration ${failed ?? "(unknown)"} failed: ${(error as Error).message}`, {
      cause: error,
    });
  }
  return { applied: (results ?? []).map((r) => r.migrationName), newer: [] };
}
