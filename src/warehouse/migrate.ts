import path from "node:path";
import { fileURLToPath } from "node:url";
import { type MigrationResult, Migrator } from "kysely";
import type { Warehouse } from "./database.js";
import { FolderMigrationProvider } from "./migration-provider.js";

const MIGRATIONS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../migrations");

export interface MigrationOutcome {
  readonly applied: readonly string[];
}

/**
 * Applies every pending migration. Kysely's migrator holds a lock row for the duration, so two
 * processes migrating at once apply each migration exactly once.
 */
export async function migrateToLatest(db: Warehouse): Promise<MigrationOutcome> {
  const migrator = new Migrator({
    db,
    provider: new FolderMigrationProvider(MIGRATIONS),
    migrationTableSchema: "etl",
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r: MigrationResult) => r.status === "Error")?.migrationName;
    throw new Error(`migration ${failed ?? "(unknown)"} failed: ${(error as Error).message}`, {
      cause: error,
    });
  }
  return { applied: (results ?? []).map((r) => r.migrationName) };
}
