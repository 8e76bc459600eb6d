import { randomBytes } from "node:crypto";
import pg from "pg";
import { DEFAULT_READER_LIMITS, grantReaderRole } from "../../src/warehouse/reader-role.js";
import type { TestWarehouse } from "./warehouse.js";

/**
 * A BI tool's session: a reader role made by grant-reader (named `<prefix>_<random>`), a client
 * logged in as it, given to `use`; the client is ended and the role dropped after, whatever
 * happened.
 */
export async function withReaderClient<T>(
  warehouse: TestWarehouse,
  prefix: string,
  use: (reader: pg.Client) => Promise<T>,
): Promise<T> {
  const role = `${prefix}_${randomBytes(4).toString("hex")}`;
  await grantReaderRole(warehouse.db, { role, login: true, limits: DEFAULT_READER_LIMITS });
  const url = new URL(warehouse.url);
  const reader = new pg.Client({
    host: url.hostname,
    port: Number(url.port || 5432),
    database: decodeURIComponent(url.pathname.slice(1)),
    user: role,
  });
  try {
    await reader.connect();
    return await use(reader);
  } finally {
    await reader.end();
    await warehouse.query(`drop owned by ${pg.escapeIdentifier(role)}`);
    await warehouse.query(`drop role ${pg.escapeIdentifier(role)}`);
  }
}
