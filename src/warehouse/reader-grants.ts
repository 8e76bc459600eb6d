import { sql, type Transaction } from "kysely";
import pg from "pg";
import type { Database } from "./schema.js";

/** The schemas a reader may read: everything but the pipeline's own (etl). */
export const READER_SCHEMAS = [
  "catalogue",
  "sales",
  "artist_stats",
  "royalties",
  "analytics",
  "history",
] as const;

/** Runs a statement whose names and values are already quoted: DDL takes no parameters. */
export function run(trx: Transaction<Database>, statement: string) {
  return sql.raw(statement).execute(trx);
}

/** Roles whose future tables should be readable: the schemas' owners and the current user. */
export async function defaultPrivilegeOwners(trx: Transaction<Database>): Promise<string[]> {
  const { rows } = await sql<{ rolname: string }>`
    select r.rolname from pg_roles r
     where (r.rolname = current_user
            or r.oid in (select nspowner from pg_namespace where nspname in (${sql.join([...READER_SCHEMAS])})))
       and pg_has_role(current_user, r.oid, 'MEMBER')
     order by r.rolname`.execute(trx);
  return rows.map((row) => row.rolname);
}

/** Connect, but create nothing in the database, in public, and nothing at all in etl. */
export async function revokeOutsideReaderSchemas(
  trx: Transaction<Database>,
  quoted: string,
  database: string,
): Promise<void> {
  await run(trx, `revoke create, temporary on database ${database} from ${quoted}`);
  await run(trx, `grant connect on database ${database} to ${quoted}`);
  const { rows: hasPublic } = await sql`
    select 1 from pg_namespace where nspname = 'public'`.execute(trx);
  if (hasPublic.length > 0) await run(trx, `revoke create on schema public from ${quoted}`);

  // The pipeline's own tables: nothing (freshness is readable through analytics.stream_freshness).
  await run(trx, `revoke all on all tables in schema etl from ${quoted}`);
  await run(trx, `revoke all on all sequences in schema etl from ${quoted}`);
  await run(trx, `revoke all on schema etl from ${quoted}`);
}

/**
 * SELECT and nothing else on every table and view of the reader schemas, now and (by default
 * privileges of `owners`) later. The relations readable, per schema.
 */
export async function grantReaderSchemas(
  trx: Transaction<Database>,
  quoted: string,
  owners: readonly string[],
): Promise<{ schema: string; count: number }[]> {
  const relations: { schema: string; count: number }[] = [];
  for (const schema of READER_SCHEMAS) {
    const target = pg.escapeIdentifier(schema);
    // Revoke first: a grant made by hand earlier (INSERT, UPDATE...) must not survive.
    await run(trx, `revoke all on all tables in schema ${target} from ${quoted}`);
    await run(trx, `revoke all on all sequences in schema ${target} from ${quoted}`);
    await run(trx, `revoke all on schema ${target} from ${quoted}`);
    await run(trx, `grant usage on schema ${target} to ${quoted}`);
    await run(trx, `grant select on all tables in schema ${target} to ${quoted}`);
    for (const owner of owners) {
      await run(
        trx,
        `alter default privileges for role ${pg.escapeIdentifier(owner)} in schema ${target} grant select on tables to ${quoted}`,
      );
    }
    const { rows } = await sql<{ count: number }>`
      select count(*)::int as count from pg_class c join pg_namespace n on n.oid = c.relnamespace
       where n.nspname = ${schema} and c.relkind in ('r', 'p', 'v', 'm', 'f')`.execute(trx);
    relations.push({ schema, count: rows[0]?.count ?? 0 });
  }
  return relations;
}

/** What the role can do that a reader must not; empty when it is read-only as intended. */
export async function violations(trx: Transaction<Database>, role: string): Promise<string[]> {
  const { rows } = await sql<{ problem: string }>`
    with user_schemas as (
      select oid, nspname from pg_namespace
       where nspname not like 'pg\\_%' and nspname <> 'information_schema'
    ), relations as (
      select c.oid, s.nspname, s.nspname || '.' || c.relname as name
        from pg_class c join user_schemas s on s.oid = c.relnamespace
       where c.relkind in ('r', 'p', 'v', 'm', 'f')
    )
    select 'can create objects in schema ' || nspname as problem from user_schemas
     where has_schema_privilege(${role}, oid, 'CREATE')
    union all
    select 'can create schemas in the database' where has_database_privilege(${role}, current_database(), 'CREATE')
    union all
    select 'can write to ' || name from relations
     where has_table_privilege(${role}, oid, 'DELETE, TRUNCATE, TRIGGER')
        or has_any_column_privilege(${role}, oid, 'INSERT, UPDATE, REFERENCES')
    union all
    select 'can read ' || name from relations
     where nspname = 'etl' and has_any_column_privilege(${role}, oid, 'SELECT')
    union all
    select 'cannot read ' || name from relations
     where nspname in (${sql.join([...READER_SCHEMAS])})
       and not has_table_privilege(${role}, oid, 'SELECT')
    order by 1`.execute(trx);
  return rows.map((row) => row.problem);
}
