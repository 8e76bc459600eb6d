import pg from "pg";
import { displayUrl } from "../../src/config/display-url.js";
import { databaseOnServer, withClient } from "./database-client.js";

/**
 * The comment the demo puts on the database it creates, and the only sign it trusts that a
 * database of its name is its own to drop.
 */
export const DEMO_MARK =
  "Made by npm run demo, which drops and re-creates it on every run. Remove this comment to keep the demo from dropping it.";

/** What a database of the demo's name is to the demo. */
export type DemoDatabaseState =
  /** No database of that name. */
  | "missing"
  /** Carries the demo's mark. */
  | "marked"
  /**
   * Uncommented and holding no object of its own: dropping it loses nothing, and a demo stopped
   * between creating its database and marking it leaves exactly this.
   */
  | "empty"
  /** Holding something, commented otherwise, or not open to connections: someone else's. */
  | "foreign";

/** A database of the demo's name that the demo did not make: left as it is. */
export class DemoDatabaseRefused extends Error {
  constructor(
    readonly database: string,
    readonly server: string,
  ) {
    super(
      `The database "${database}" on ${server} was not made by the demo: it lacks the comment the demo marks its own with, and it is not an empty, uncommented one the demo could take over. The demo leaves it as it is.\n` +
        "(A demo database made before the demo marked its own cannot be told apart from yours either.)\n" +
        `Choose another name (npm run demo -- --database <name>, or DEMO_DATABASE=<name>), or, if nothing in it is needed, drop it yourself (drop database "${database}";) and run npm run demo again.\n`,
    );
    this.name = "DemoDatabaseRefused";
  }
}

/**
 * Anything a user could have put in a database beyond what every new one holds: a schema, an
 * object in public, an extension, a large object.
 */
const HOLDS_SOMETHING = `select
     exists (select from pg_namespace
              where nspname not in ('public', 'information_schema') and nspname not like 'pg\\_%')
  or exists (select from pg_class c join pg_namespace n on n.oid = c.relnamespace where n.nspname = 'public')
  or exists (select from pg_proc p join pg_namespace n on n.oid = p.pronamespace where n.nspname = 'public')
  or exists (select from pg_type t join pg_namespace n on n.oid = t.typnamespace where n.nspname = 'public')
  or exists (select from pg_extension where extname <> 'plpgsql')
  or exists (select from pg_largeobject_metadata) as holds`;

/** What the database `database` on the server of `serverUrl` is to the demo. */
export async function demoDatabaseState(
  serverUrl: string,
  database: string,
): Promise<DemoDatabaseState> {
  const found = await withClient(databaseOnServer(serverUrl, "postgres"), (client) =>
    client.query<{ comment: string | null; allowconn: boolean }>(
      `select shobj_description(oid, 'pg_database') as comment, datallowconn as allowconn
         from pg_database where datname = $1`,
      [database],
    ),
  );
  const row = found.rows[0];
  if (row === undefined) return "missing";
  if (row.comment === DEMO_MARK) return "marked";
  if (row.comment !== null || !row.allowconn) return "foreign";
  const { rows } = await withClient(databaseOnServer(serverUrl, database), (client) =>
    client.query<{ holds: boolean }>(HOLDS_SOMETHING),
  );
  return rows[0]?.holds === false ? "empty" : "foreign";
}

/**
 * The demo's database, made empty and marked as the demo's, on the server of `serverUrl`; its
 * URL. One of that name that is neither the demo's nor empty is refused untouched.
 */
export async function freshDemoDatabase(serverUrl: string, database: string): Promise<string> {
  const state = await demoDatabaseState(serverUrl, database);
  if (state === "foreign") {
    throw new DemoDatabaseRefused(database, displayUrl(databaseOnServer(serverUrl, "")));
  }
  const name = pg.escapeIdentifier(database);
  await withClient(databaseOnServer(serverUrl, "postgres"), async (client) => {
    if (state !== "missing") await client.query(`drop database ${name} with (force)`);
    await client.query(`create database ${name}`);
    await client.query(`comment on database ${name} is ${pg.escapeLiteral(DEMO_MARK)}`);
  });
  return databaseOnServer(serverUrl, database);
}
