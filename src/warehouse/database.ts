import { Kysely, PostgresDialect } from "kysely";
import pg from "pg";
import { pgConnectionConfig } from "./pg-connection-config.js";
import type { Database } from "./schema.js";

// numeric and bigint come back as exact text; the warehouse never rounds money or counts.
export type Warehouse = Kysely<Database>;

export function createWarehouse(url: string, options: { maxConnections?: number } = {}): Warehouse {
  const pool = new pg.Pool({
    ...pgConnectionConfig(url),
    max: options.maxConnections ?? 10,
    connectionTimeoutMillis: 10_000,
  });
  // An idle client that loses its server (restart, terminate) must not crash the process.
  pool.on("error", () => undefined);
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
}
