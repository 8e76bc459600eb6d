import { userInfo } from "node:os";
import type { ClientConfig } from "pg";

/**
 * Connection settings for a DATABASE_URL. A URL without a user name means the operating-system
 * user, as for psql; node-postgres would otherwise read $USER and send none when it is unset.
 */
export function pgConnectionConfig(url: string): ClientConfig {
  const parsed = new URL(url);
  if (parsed.username === "") parsed.username = process.env.PGUSER ?? userInfo().username;
  return { connectionString: parsed.toString() };
}
