import pg from "pg";
import { pgConnectionConfig } from "../../src/warehouse/pg-connection-config.js";

/** The URL of the database `database` on the server `serverUrl` names (with any database). */
export function databaseOnServer(serverUrl: string, database: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

/**
 * `run` with a client of `url`, closed after. It gives up on connecting after 3 s, so a server
 * that is away is reported instead of waited for.
 */
export async function withClient<T>(
  url: string,
  run: (client: pg.Client) => Promise<T>,
): Promise<T> {
  const client = new pg.Client({ ...pgConnectionConfig(url), connectionTimeoutMillis: 3_000 });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}
