import pg from "pg";
import { pgConnectionConfig } from "./pg-connection-config.js";

/** The database named in the URL, created when missing; true when this call created it. */
export async function ensureDatabase(url: string): Promise<boolean> {
  const name = decodeURIComponent(new URL(url).pathname.slice(1));
  if (!name) throw new Error("DATABASE_URL names no database");
  const maintenance = new URL(url);
  maintenance.pathname = "/postgres";
  const client = new pg.Client(pgConnectionConfig(maintenance.toString()));
  await client.connect();
  try {
    const { rowCount } = await client.query("select 1 from pg_database where datname = $1", [name]);
    if (rowCount) return false;
    await client.query(`create database ${pg.escapeIdentifier(name)}`);
    return true;
  } catch (error) {
    // Another process created it between our check and our create.
    const code = (error as { code?: string }).code;
    if (code === "42P04" || code === "23505") return false;
    throw error;
  } finally {
    await client.end();
  }
}
