import { sql, type Transaction } from "kysely";
import pg from "pg";
import { EtlError, UsageError } from "../errors.js";
import type { Warehouse } from "./database.js";
import { publicGrantsLeft, revokePublicGrants } from "./public-grants.js";
import {
  defaultPrivilegeOwners,
  grantReaderSchemas,
  revokeOutsideReaderSchemas,
  run,
  violations,
} from "./reader-grants.js";
import type { Database } from "./schema.js";

/** An unquoted lower-case SQL identifier, so the name reads the same in psql and BI tools. */
const ROLE_NAME = /^[a-z_][a-z0-9_]{0,62}$/;
/** Names PostgreSQL reserves or gives a special meaning in GRANT and ALTER ROLE. */
const RESERVED = new Set(["public", "none", "all", "current_user", "session_user", "current_role"]);

/** Why `name` cannot be a reader role, or null when it can. */
export function readerRoleNameProblem(name: string): string | null {
  if (!ROLE_NAME.test(name)) {
    return `role name ${JSON.stringify(name)} must be 1 to 63 lower-case letters, digits or underscores, not starting with a digit`;
  }
  if (name.startsWith("pg_"))
    return `role name "${name}" starts with pg_, which PostgreSQL reserves`;
  if (RESERVED.has(name)) return `role name "${name}" is reserved by PostgreSQL`;
  return null;
}

/** What a BI session of the reader gets, in this database: names resolve, nothing runs forever. */
export interface ReaderSessionLimits {
  /** A query running longer is cancelled: one heavy dashboard cannot hold a migration's lock. */
  readonly statementTimeoutMs: number;
  /** Sessions the role may hold at once (-1: no limit). */
  readonly connectionLimit: number;
}

export const DEFAULT_READER_LIMITS: ReaderSessionLimits = {
  statementTimeoutMs: 120_000,
  connectionLimit: 10,
};

/** Unqualified names resolve to the views first, then the tables. */
export const READER_SEARCH_PATH = ["analytics", "sales", "catalogue", "artist_stats", "royalties"];

/**
 * A transaction a BI tool left open holds its locks, and a migration waits behind them (and every
 * query behind the migration): an idle one is ended after this.
 */
const IDLE_IN_TRANSACTION_MS = 300_000;

/**
 * From PostgreSQL 17, a whole transaction, however many queries, ends after this (or after the
 * statement timeout, when longer: a single query must meet its own limit first).
 */
const TRANSACTION_MS = 1_800_000;

export interface ReaderRoleOptions {
  readonly role: string;
  readonly limits: ReaderSessionLimits;
  /** Make the role a login role (a new role is NOLOGIN otherwise; an existing one is left as is). */
  readonly login: boolean;
  /** SCRAM verifier to set as the role's password (with login only). */
  readonly passwordVerifier?: string;
}

export interface ReaderRoleOutcome {
  readonly database: string;
  readonly created: boolean;
  readonly canLogin: boolean;
  readonly passwordSet: boolean;
  /** Tables and views readable, per schema. */
  readonly relations: readonly { schema: string; count: number }[];
  /** Roles whose future tables in the reader schemas the role can read. */
  readonly defaultPrivilegesFor: readonly string[];
  /** The session settings now in force for the role in this database. */
  readonly settings: readonly string[];
  readonly connectionLimit: number;
  /** The pipeline's roles given back what PUBLIC lost (temporary tables, advisory locks). */
  readonly pipelineRoles: readonly string[];
  /** What the role can still do that it should not, each with who can take it away. */
  readonly notTakenAway: readonly string[];
}

interface RoleAttributes {
  rolsuper: boolean;
  rolcreaterole: boolean;
  rolcreatedb: boolean;
  rolreplication: boolean;
  rolbypassrls: boolean;
  rolcanlogin: boolean;
}

const ATTRIBUTES = "nosuperuser nocreatedb nocreaterole noreplication nobypassrls inherit";

async function roleAttributes(trx: Transaction<Database>, role: string) {
  const { rows } = await sql<RoleAttributes>`
    select rolsuper, rolcreaterole, rolcreatedb, rolreplication, rolbypassrls, rolcanlogin
      from pg_roles where rolname = ${role}`.execute(trx);
  return rows[0];
}

/** The PASSWORD clause of CREATE or ALTER ROLE: the verifier, never the password itself. */
function passwordClause(options: ReaderRoleOptions): string {
  return options.passwordVerifier ? ` password ${pg.escapeLiteral(options.passwordVerifier)}` : "";
}

/** Creates the role, or finds it when another process created it at the same moment. */
async function createRole(
  trx: Transaction<Database>,
  quoted: string,
  options: ReaderRoleOptions,
): Promise<boolean> {
  const password = passwordClause(options);
  await sql`savepoint create_reader_role`.execute(trx);
  try {
    await sql
      .raw(`create role ${quoted} ${options.login ? "login" : "nologin"} ${ATTRIBUTES}${password}`)
      .execute(trx);
    await sql`release savepoint create_reader_role`.execute(trx);
    return true;
  } catch (error) {
    if ((error as { code?: string }).code !== "42710") throw error;
    await sql`rollback to savepoint create_reader_role`.execute(trx);
    return false;
  }
}

/** transaction_timeout came with PostgreSQL 17. */
async function serverHasTransactionTimeout(trx: Transaction<Database>): Promise<boolean> {
  const { rows } = await sql<{ version: number }>`
    select current_setting('server_version_num')::int as version`.execute(trx);
  return (rows[0]?.version ?? 0) >= 170_000;
}

/**
 * Makes `role` a read-only reader of the warehouse, in one transaction: creates it when missing,
 * grants USAGE on the reader schemas and SELECT on their tables and views (and on those created
 * later), revokes everything else it held there and on etl, takes back from PUBLIC in this
 * database the temporary tables, large objects and advisory locks every role has by default
 * (giving the pipeline's roles back the ones they use), then checks that it can write or create
 * nothing anywhere in the database. Running it again changes nothing. What it could not take
 * back (only a superuser revokes EXECUTE on Postgres's functions) is in `notTakenAway`.
 */
export async function grantReaderRole(
  db: Warehouse,
  options: ReaderRoleOptions,
): Promise<ReaderRoleOutcome> {
  const { role } = options;
  const problem = readerRoleNameProblem(role);
  if (problem) throw new UsageError(problem);
  const quoted = pg.escapeIdentifier(role);
  return db.transaction().execute(async (trx) => {
    // Two grant-reader runs at once would fail with "tuple concurrently updated".
    await sql`select pg_advisory_xact_lock(hashtext('music-etl:grant-reader'))`.execute(trx);
    const session = await currentSession(trx, role);
    const created = await ensureRole(trx, quoted, options);

    const database = pg.escapeIdentifier(session.database);
    await revokeOutsideReaderSchemas(trx, quoted, database);
    const owners = await defaultPrivilegeOwners(trx);
    const relations = await grantReaderSchemas(trx, quoted, owners);
    // What every role has by default: temporary tables, large objects, advisory locks.
    const pipelineRoles = await revokePublicGrants(trx, role, session.database);

    const problems = await violations(trx, role);
    if (problems.length > 0) {
      // Thrown inside the transaction: nothing of this run is kept.
      throw new EtlError(
        `role "${role}" would not be read-only, so nothing was changed: it ${problems.join("; ")}. Grants to PUBLIC or to roles it is a member of do this (e.g. REVOKE CREATE ON SCHEMA public FROM PUBLIC, the default since PostgreSQL 15).`,
        { role },
      );
    }
    await setSessionLimits(trx, quoted, database, options.limits);
    const settings = await settingsInForce(trx, role);
    const after = await roleAttributes(trx, role);
    return {
      database: session.database,
      created,
      canLogin: after?.rolcanlogin ?? false,
      passwordSet: options.passwordVerifier !== undefined,
      relations,
      defaultPrivilegesFor: owners,
      settings,
      connectionLimit: options.limits.connectionLimit,
      pipelineRoles,
      notTakenAway: await publicGrantsLeft(trx, role),
    };
  });
}

/** Who runs this, and where; refuses to make a reader of the role running it. */
async function currentSession(
  trx: Transaction<Database>,
  role: string,
): Promise<{ user: string; database: string }> {
  const {
    rows: [session],
  } = await sql<{ user: string; database: string }>`
    select current_user as user, current_database() as database`.execute(trx);
  if (!session) throw new Error("no session information");
  if (role === session.user) {
    throw new UsageError(`"${role}" is the role running this command; choose another name`);
  }
  return session;
}

/**
 * Creates the role, or takes the existing one when it has no power a reader must not have (making
 * it a login role when asked). Whether it was created.
 */
async function ensureRole(
  trx: Transaction<Database>,
  quoted: string,
  options: ReaderRoleOptions,
): Promise<boolean> {
  const { role } = options;
  let existing = await roleAttributes(trx, role);
  const created = existing ? false : await createRole(trx, quoted, options);
  existing ??= await roleAttributes(trx, role);
  if (!existing) throw new Error(`role "${role}" could not be created`);
  if (!created) {
    refusePowers(role, existing);
    if (options.login) {
      await run(trx, `alter role ${quoted} login${passwordClause(options)}`);
    }
  }
  return created;
}

/** An existing role with a power beyond reading is refused rather than stripped of it. */
function refusePowers(role: string, existing: RoleAttributes): void {
  const powers = (
    [
      ["superuser", existing.rolsuper],
      ["createrole", existing.rolcreaterole],
      ["createdb", existing.rolcreatedb],
      ["replication", existing.rolreplication],
      ["bypassrls", existing.rolbypassrls],
    ] as const
  ).filter(([, has]) => has);
  if (powers.length > 0) {
    throw new UsageError(
      `role "${role}" exists with ${powers.map(([name]) => name.toUpperCase()).join(", ")}: it cannot be a read-only reader; choose another name`,
    );
  }
}

/** The search path and timeouts of the role's sessions, and how many it may hold. */
async function setSessionLimits(
  trx: Transaction<Database>,
  quoted: string,
  database: string,
  limits: ReaderSessionLimits,
): Promise<void> {
  // In this database only: the role may read others, where other settings suit it.
  // search_path is a list: one quoted string would be a single schema named "analytics, ...".
  const settings: Record<string, string> = {
    search_path: READER_SEARCH_PATH.map((schema) => pg.escapeIdentifier(schema)).join(", "),
    statement_timeout: pg.escapeLiteral(`${limits.statementTimeoutMs}ms`),
    idle_in_transaction_session_timeout: pg.escapeLiteral(`${IDLE_IN_TRANSACTION_MS}ms`),
    // The dashboards' queries read roll-ups in milliseconds, but JIT compiles for a plan's
    // estimated cost, which counts the stale days' reading from the items as if there were some:
    // it spent 0.8 s compiling a 6 ms query.
    jit: "off",
  };
  if (await serverHasTransactionTimeout(trx)) {
    const ms = Math.max(TRANSACTION_MS, limits.statementTimeoutMs);
    settings.transaction_timeout = pg.escapeLiteral(`${ms}ms`);
  }
  for (const [name, value] of Object.entries(settings)) {
    await run(trx, `alter role ${quoted} in database ${database} set ${name} = ${value}`);
  }
  await run(trx, `alter role ${quoted} connection limit ${limits.connectionLimit}`);
}

/** The session settings in force for the role in this database. */
async function settingsInForce(trx: Transaction<Database>, role: string): Promise<string[]> {
  const { rows } = await sql<{ setting: string }>`
    select unnest(s.setconfig) as setting from pg_db_role_setting s
     where s.setrole = (select oid from pg_roles where rolname = ${role})
       and s.setdatabase = (select oid from pg_database where datname = current_database())
     order by 1`.execute(trx);
  return rows.map((row) => row.setting);
}
