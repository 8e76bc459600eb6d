import { type RawBuilder, sql } from "kysely";
import type { Warehouse } from "./database.js";

/**
 * A session holding a lock another waits for, as pg_stat_activity shows it. Without superuser or
 * pg_read_all_stats, Postgres hides the state, client and times of other roles' sessions: those
 * fields are then null, the pid, role and application name never are.
 */
export interface LockHolder {
  readonly pid: number;
  readonly user: string | null;
  readonly application: string | null;
  readonly client: string | null;
  readonly state: string | null;
  /** When the session entered its state (for "idle in transaction": when it went idle). */
  readonly since: Date | null;
  /** The tables it holds locks on, for a table lock. */
  readonly tables: readonly string[];
}

/** The sessions of this database holding a lock the query's `lock` condition picks (alias `l`). */
async function holders(db: Warehouse, lock: RawBuilder<unknown>): Promise<LockHolder[]> {
  const { rows } = await sql<LockHolder>`
    select a.pid, a.usename as user, nullif(a.application_name, '') as application,
           host(a.client_addr) as client, a.state, a.state_change as since,
           coalesce(array_agg(distinct n.nspname || '.' || c.relname)
                      filter (where c.oid is not null), '{}') as tables
      from pg_locks l
      join pg_stat_activity a on a.pid = l.pid
      left join pg_class c on l.locktype = 'relation' and c.oid = l.relation and c.relkind in ('r', 'p', 'v', 'm')
      left join pg_namespace n on n.oid = c.relnamespace
     where l.granted and l.pid <> pg_backend_pid()
       and l.database = (select oid from pg_database where datname = current_database())
       and ${lock}
     group by a.pid, a.usename, a.application_name, a.client_addr, a.state, a.state_change
     order by a.pid`.execute(db);
  return rows;
}

/** Who holds the session or transaction advisory lock on a bigint key (given as text). */
export function advisoryLockHolders(db: Warehouse, key: string): Promise<LockHolder[]> {
  // A bigint key is stored as its high and low 32 bits, objsubid 1 (2 for a pair of int keys).
  return holders(
    db,
    sql`l.locktype = 'advisory' and l.objsubid = 1
        and l.classid::bigint = (${key}::bigint >> 32)
        and l.objid::bigint = (${key}::bigint & 4294967295)`,
  );
}

/**
 * Who holds locks on the warehouse's tables. Asked after a DDL statement gave up waiting, when
 * Postgres no longer says which lock it waited for: the session that blocked it is among these.
 */
export function tableLockHolders(db: Warehouse): Promise<LockHolder[]> {
  return holders(
    db,
    sql`l.locktype = 'relation'
        and n.nspname not in ('pg_catalog', 'information_schema') and n.nspname not like 'pg\\_%'`,
  );
}

/** `pid 4242 (user bi, application "Metabase", from 10.0.0.7, idle in transaction since …)`. */
export function describeHolder(holder: LockHolder): string {
  const facts = [
    holder.user === null ? null : `user ${holder.user}`,
    holder.application === null ? null : `application ${JSON.stringify(holder.application)}`,
    holder.client === null ? null : `from ${holder.client}`,
    holder.state === null
      ? null
      : `${holder.state}${holder.since ? ` since ${holder.since.toISOString().replace(/\.\d+Z$/, "Z")}` : ""}`,
    holder.tables.length === 0 ? null : `on ${holder.tables.join(", ")}`,
  ].filter((fact) => fact !== null);
  return `pid ${holder.pid}${facts.length > 0 ? ` (${facts.join(", ")})` : ""}`;
}

/** The holders for a message: "pid 1 (...); pid 2 (...)", or what is known when none is left. */
export function describeHolders(holders: readonly LockHolder[]): string {
  return holders.length === 0
    ? "a session that has since let go"
    : holders.map((holder) => describeHolder(holder)).join("; ");
}
