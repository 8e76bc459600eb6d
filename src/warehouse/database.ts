import { Kysely, PostgresDialect, sql } from "kysely";
import pg from "pg";
import { CopyAwarePool } from "./copy-aware-pool.js";
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
  // A client that loses its server (restart, pg_terminate_backend) must not crash the process:
  // the pool only listens on idle clients, so listen on every client. The query in flight, or
  // the next one, fails with the error instead, and the partition is retried.
  pool.on("error", () => undefined);
  pool.on("connect", (client) => {
    client.on("error", () => undefined);
  });
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool: new CopyAwarePool(pool) }) });
}

/** Rejects unless Postgres answers a query: a pool that cannot connect fails here. */
export async function pingWarehouse(db: Warehouse): Promise<void> {
  await sql`select 1`.execute(db);
}
