import { sql, type Transaction } from "kysely";
import pg from "pg";
import type { Database } from "./schema.js";

/**
 * What Postgres grants every role (PUBLIC) by default that a read-only role must not have, and
 * that only a revoke from PUBLIC takes away: a revoke from the role alone leaves it what PUBLIC
 * holds. Each is per database (pg_proc and the database's ACL are), so other databases of the
 * server keep Postgres's defaults.
 */
interface PublicGrant {
  /** What the grant lets a role do, for the report. */
  readonly power: string;
  /** The functions it is EXECUTE on, as `pg_catalog.name(args)`; null: the database's TEMPORARY. */
  readonly functions: ((trx: Transaction<Database>) => Promise<string[]>) | null;
  /** Whether the pipeline's roles need it back (the writer's staging tables, its locks). */
  readonly pipelineNeedsIt: boolean;
  /** Who can revoke it from PUBLIC. */
  readonly revokableBy: string;
}

/** The pg_catalog functions named by `pattern` (a regular expression), with their arguments. */
function catalogFunctions(pattern: string) {
  return async (trx: Transaction<Database>) => {
    const { rows } = await sql<{ signature: string }>`
      select 'pg_catalog.' || p.oid::regprocedure::text as signature from pg_proc p
       where p.pronamespace = 'pg_catalog'::regnamespace and p.proname ~ ${pattern}
       order by 1`.execute(trx);
    return rows.map((row) => row.signature);
  };
}

/** The grants taken back, in the order of the report. */
const PUBLIC_GRANTS: readonly PublicGrant[] = [
  {
    // Private to the session, but written to disk without limit (temp_file_limit does not count
    // temporary tables), and a reader has no use for them: BI tools read.
    power: "create temporary tables",
    functions: null,
    pipelineNeedsIt: true,
    revokableBy: "the database's owner",
  },
  {
    // Large objects outlive the session and belong to their creator: a reader could store
    // anything, without limit, in a database it should only read. lo_import from a server file is
    // already a superuser's (or pg_read_server_files's); reading or writing an existing object
    // needs its owner's grant while lo_compat_privileges is off, as it is by default.
    power: "create large objects",
    functions: catalogFunctions("^(lo_creat|lo_create|lo_from_bytea)$"),
    pipelineNeedsIt: false,
    revokableBy: "a superuser",
  },
  {
    // Every advisory lock function that takes a lock (the unlock ones only release the caller's
    // own): a reader holding the migration's key, even shared, stops every migrate.
    power: "take advisory locks, the migration lock among them",
    functions: catalogFunctions("^pg_(try_)?advisory_(xact_)?lock(_shared)?$"),
    pipelineNeedsIt: true,
    revokableBy: "a superuser",
  },
];

/**
 * The roles that run the pipeline and so keep what PUBLIC loses: the one running this, and every
 * role that can write the pipeline's state (the workers' role when another runs grant-reader).
 * Superusers need no grant.
 */
async function pipelineRoles(trx: Transaction<Database>, reader: string): Promise<string[]> {
  const { rows } = await sql<{ rolname: string }>`
    select r.rolname from pg_roles r
     where not r.rolsuper and r.rolname !~ '^pg_' and r.rolname <> ${reader}
       and (r.rolname = current_user
            or (to_regclass('etl.attempts') is not null
                and has_table_privilege(r.oid, 'etl.attempts', 'INSERT')))
     order by 1`.execute(trx);
  return rows.map((row) => row.rolname);
}

/**
 * Runs a GRANT or REVOKE that only some roles may run. One the current role may not run either
 * warns (it then changes nothing) or fails (42501): the check after says what is left either way.
 */
async function attempt(trx: Transaction<Database>, statement: string): Promise<void> {
  await sql`savepoint public_grant`.execute(trx);
  try {
    await sql.raw(statement).execute(trx);
    await sql`release savepoint public_grant`.execute(trx);
  } catch (error) {
    if ((error as { code?: string }).code !== "42501") throw error;
    await sql`rollback to savepoint public_grant`.execute(trx);
  }
}

/** What a GRANT or REVOKE of `grant` names: the functions, or the database; null: none here. */
async function grantTarget(trx: Transaction<Database>, grant: PublicGrant, database: string) {
  if (grant.functions === null) return `temporary on database ${pg.escapeIdentifier(database)}`;
  const functions = await grant.functions(trx);
  return functions.length > 0 ? `execute on function ${functions.join(", ")}` : null;
}

/**
 * Takes back from PUBLIC, in this database, what a reader must not have, after granting it to
 * the pipeline's roles that need it. Returns those roles.
 */
export async function revokePublicGrants(
  trx: Transaction<Database>,
  reader: string,
  database: string,
): Promise<string[]> {
  const keepers = await pipelineRoles(trx, reader);
  for (const grant of PUBLIC_GRANTS) {
    const target = await grantTarget(trx, grant, database);
    if (target === null) continue;
    if (grant.pipelineNeedsIt && keepers.length > 0) {
      await attempt(
        trx,
        `grant ${target} to ${keepers.map((r) => pg.escapeIdentifier(r)).join(", ")}`,
      );
    }
    await attempt(trx, `revoke ${target} from public, ${pg.escapeIdentifier(reader)}`);
  }
  return keepers;
}

/**
 * What of the PUBLIC grants `reader` still has (the current role could not revoke it, or a role
 * the reader belongs to holds it), each with who can take it away.
 */
export async function publicGrantsLeft(
  trx: Transaction<Database>,
  reader: string,
): Promise<string[]> {
  const left: string[] = [];
  for (const grant of PUBLIC_GRANTS) {
    const { rows } = await (
      grant.functions === null
        ? sql<{ name: string }>`
          select 'TEMPORARY on the database' as name
           where has_database_privilege(${reader}, current_database(), 'TEMPORARY')`
        : sql<{ name: string }>`
          select f as name from unnest(${await grant.functions(trx)}::text[]) f
           where has_function_privilege(${reader}, f::regprocedure, 'EXECUTE')`
    ).execute(trx);
    if (rows.length === 0) continue;
    // Names without their arguments: the lock functions come in 16 signatures of 8 names.
    const names = [...new Set(rows.map((row) => row.name.replace(/^pg_catalog\.|\(.*$/g, "")))];
    left.push(
      `${grant.power} (${names.join(", ")}): granted to PUBLIC or a role it belongs to; ${grant.revokableBy} can revoke it (run grant-reader as ${grant.revokableBy})`,
    );
  }
  return left;
}
