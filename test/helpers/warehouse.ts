import { randomBytes } from "node:crypto";
import { resolve } from "node:path";
import { Kysely, type Migration, PostgresDialect } from "kysely";
import pg from "pg";
import { createWarehouse, type Warehouse } from "../../src/warehouse/database.js";
import { ensureDatabase } from "../../src/warehouse/ensure-database.js";
import { settleRoles } from "../../src/analytics/settle-roles.js";
import { migrateToLatest } from "../../src/warehouse/migrate.js";
import { FolderMigrationProvider } from "../../src/warehouse/migration-provider.js";
import { pgConnectionConfig } from "../../src/warehouse/pg-connection-config.js";
import { PROJECT_ROOT } from "./cli.js";

export const PG_HOST_URL = process.env.TEST_PG_URL ?? "postgres://127.0.0.1:5432";
/** Names the migrated database a test run copies warehouses from (test/helpers/template-warehouse.ts). */
export const TEMPLATE_ENV = "MUSIC_ETL_TEST_TEMPLATE";

export interface TestWarehouse {
  readonly url: string;
  readonly db: Warehouse;
  /** Plain SQL against the test database, for assertions. */
  query<T extends pg.QueryResultRow = Record<string, unknown>>(
    text: string,
    values?: unknown[],
  ): Promise<T[]>;
  drop(): Promise<void>;
}

/**
 * A database of this test file's own, migrated (a copy of the run's template when vitest made
 * one; the bench and other callers migrate); `drop` removes it.
 */
export async function createTestWarehouse(label: string): Promise<TestWarehouse> {
  const name = `music_etl_test_${label.replace(/\W/g, "_")}_${randomBytes(4).toString("hex")}`;
  const url = `${PG_HOST_URL}/${name}`;
  const template = process.env[TEMPLATE_ENV];
  if (template) {
    await withDatabaseClient((c) =>
      c.query(
        `create database ${pg.escapeIdentifier(name)} template ${pg.escapeIdentifier(template)}`,
      ),
    );
  } else {
    await ensureDatabase(url);
  }
  const db = createWarehouse(url, { maxConnections: 4 });
  const client = new pg.Client(pgConnectionConfig(url));
  try {
    if (!template) {
      await migrateToLatest(db);
      await settleRoles(db, {});
    }
    await client.connect();
  } catch (error) {
    // A setup that fails halfway must not leave its database behind.
    await client.end().catch(() => undefined);
    await db.destroy();
    await dropDatabase(name);
    throw error;
  }
  return {
    url,
    db,
    query: async (text, values) => (await client.query(text, values)).rows,
    async drop() {
      await client.end();
      await db.destroy();
      await dropDatabase(name);
    },
  };
}

/** A client on one database of the test server (the maintenance one by default), closed after. */
export async function withDatabaseClient<T>(
  run: (client: pg.Client) => Promise<T>,
  database = "postgres",
): Promise<T> {
  const client = new pg.Client(pgConnectionConfig(`${PG_HOST_URL}/${database}`));
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

export async function dropDatabase(name: string): Promise<void> {
  await withDatabaseClient((c) =>
    c.query(`drop database if exists ${pg.escapeIdentifier(name)} with (force)`),
  );
}

/**
 * The release's migrations and `extra` after them (name them to sort last): a warehouse the
 * helper migrated then has exactly `extra` pending, for migrateToLatest's `provider`.
 */
export function migrationsWith(extra: Readonly<Record<string, Migration>>) {
  const folder = new FolderMigrationProvider(resolve(PROJECT_ROOT, "migrations"));
  return {
    names: async () => [...(await folder.names()), ...Object.keys(extra)],
    getMigrations: async () => ({ ...(await folder.getMigrations()), ...extra }),
  };
}

/**
 * The statements `work` sends through a client of its own on `url` (one connection), each with
 * its parameters as sent: for tests of what reaches Postgres.
 */
export async function queriesSent<DB>(
  url: string,
  work: (db: Kysely<DB>) => Promise<unknown>,
): Promise<{ readonly sql: string; readonly parameters: readonly unknown[] }[]> {
  const sent: { sql: string; parameters: readonly unknown[] }[] = [];
  const db = new Kysely<DB>({
    dialect: new PostgresDialect({ pool: new pg.Pool({ ...pgConnectionConfig(url), max: 1 }) }),
    log: (event) => void sent.push({ sql: event.query.sql, parameters: event.query.parameters }),
  });
  try {
    await work(db);
  } finally {
    await db.destroy();
  }
  return sent;
}

/** The texts of the statements `work` sends (see queriesSent). */
export async function statementsSent<DB>(
  url: string,
  work: (db: Kysely<DB>) => Promise<unknown>,
): Promise<string[]> {
  return (await queriesSent(url, work)).map((query) => query.sql);
}
