// Vitest's global setup: one migrated database per test run, which every file's warehouse is
// copied from (CREATE DATABASE … TEMPLATE) instead of running every migration again: about a
// second per warehouse, and the suite makes over a hundred.
import { randomBytes } from "node:crypto";
import pg from "pg";
import { createWarehouse } from "../../src/warehouse/database.js";
import { ensureDatabase } from "../../src/warehouse/ensure-database.js";
import { migrateToLatest } from "../../src/warehouse/migrate.js";
import { settleRoles } from "../../src/analytics/settle-roles.js";
import { dropDatabase, PG_HOST_URL, TEMPLATE_ENV, withDatabaseClient } from "./warehouse.js";

export default async function setup(): Promise<() => Promise<void>> {
  const name = `music_etl_test_template_${randomBytes(4).toString("hex")}`;
  await ensureDatabase(`${PG_HOST_URL}/${name}`);
  const db = createWarehouse(`${PG_HOST_URL}/${name}`, { maxConnections: 1 });
  try {
    // As `etl migrate` leaves it: the analytics views built from the (pending) roles.
    await migrateToLatest(db);
    await settleRoles(db, {});
  } catch (error) {
    await db.destroy();
    await dropDatabase(name);
    throw error;
  }
  await db.destroy();
  // A template refuses to be copied while anyone is connected to it: nobody may connect.
  await withDatabaseClient((c) =>
    c.query(`alter database ${pg.escapeIdentifier(name)} with allow_connections false`),
  );
  process.env[TEMPLATE_ENV] = name;
  return async () => {
    await dropDatabase(name);
  };
}
