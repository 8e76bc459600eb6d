import { type Kysely, sql } from "kysely";
import type { Resolution, ResolutionHow } from "./role-decision.js";

/** A role's resolution as etl.roles keeps it. */
export interface RecordedRole {
  readonly role: string;
  readonly scope: string;
  readonly table: string;
  readonly column: string | null;
  readonly field: string | null;
  readonly how: ResolutionHow;
  readonly summary: string;
  readonly resolvedAt: Date;
  readonly changedAt: Date;
}

/** A role whose column, or how it was resolved, changed: an event, as a schema change is. */
export interface RoleChange {
  readonly role: string;
  readonly scope: string;
  readonly fromColumn: string | null;
  readonly toColumn: string | null;
  readonly fromHow: ResolutionHow | null;
  readonly toHow: ResolutionHow;
  readonly summary: string;
}

const key = (role: string, scope: string) => `${role}\u0000${scope}`;

/** Every role as last resolved, in the order resolved. */
export async function recordedRoles<DB>(db: Kysely<DB>): Promise<RecordedRole[]> {
  const { rows } = await sql<{
    role: string;
    scope: string;
    table_name: string;
    column_name: string | null;
    field: string | null;
    how: ResolutionHow;
    summary: string;
    resolved_at: Date;
    changed_at: Date;
  }>`select role, scope, table_name, column_name, field, how, summary, resolved_at, changed_at
       from etl.roles order by role, scope`.execute(db);
  return rows.map((row) => ({
    role: row.role,
    scope: row.scope,
    table: row.table_name,
    column: row.column_name,
    field: row.field,
    how: row.how,
    summary: row.summary,
    resolvedAt: row.resolved_at,
    changedAt: row.changed_at,
  }));
}

/**
 * Records the resolutions (in the caller's transaction), and a change for each role whose column
 * or way of resolution differs from the last recorded: the changes made.
 */
export async function recordResolutions(
  trx: Kysely<unknown>,
  resolutions: readonly Resolution[],
  runId: string | null,
): Promise<RoleChange[]> {
  const before = new Map((await recordedRoles(trx)).map((r) => [key(r.role, r.scope), r]));
  const changes: RoleChange[] = [];
  for (const r of resolutions) {
    const was = before.get(key(r.role, r.scope));
    const changed = !was || was.column !== r.column || was.how !== r.how;
    await sql`
      insert into etl.roles as r
        (role, scope, table_name, column_name, field, data_type, how, summary, evidence)
      values (${r.role}, ${r.scope}, ${r.table}, ${r.column}, ${r.field}, ${r.type}, ${r.how},
              ${r.summary}, ${JSON.stringify(r.evidence)}::jsonb)
      on conflict (role, scope) do update
        set table_name = excluded.table_name, column_name = excluded.column_name,
            field = excluded.field, data_type = excluded.data_type, how = excluded.how,
            summary = excluded.summary, evidence = excluded.evidence, resolved_at = now(),
            changed_at = case when ${changed} then now() else r.changed_at end`.execute(trx);
    if (!changed) continue;
    const change: RoleChange = {
      role: r.role,
      scope: r.scope,
      fromColumn: was?.column ?? null,
      toColumn: r.column,
      fromHow: was?.how ?? null,
      toHow: r.how,
      summary: r.summary,
    };
    await sql`
      insert into etl.role_changes
        (role, scope, from_column, to_column, from_how, to_how, summary, run_id)
      values (${change.role}, ${change.scope}, ${change.fromColumn}, ${change.toColumn},
              ${change.fromHow}, ${change.toHow}, ${change.summary}, ${runId})`.execute(trx);
    changes.push(change);
  }
  return changes;
}

/** The role changes of the last `days` days, newest first. */
export async function recentRoleChanges(
  db: Kysely<unknown>,
  days: number,
): Promise<(RoleChange & { readonly changedAt: Date })[]> {
  const { rows } = await sql<{
    role: string;
    scope: string;
    from_column: string | null;
    to_column: string | null;
    from_how: ResolutionHow | null;
    to_how: ResolutionHow;
    summary: string;
    changed_at: Date;
  }>`select role, scope, from_column, to_column, from_how, to_how, summary, changed_at
       from etl.role_changes where changed_at > now() - make_interval(days => ${days})
      order by change_id desc`.execute(db);
  return rows.map((row) => ({
    role: row.role,
    scope: row.scope,
    fromColumn: row.from_column,
    toColumn: row.to_column,
    fromHow: row.from_how,
    toHow: row.to_how,
    summary: row.summary,
    changedAt: row.changed_at,
  }));
}

/** etl.roles as last resolved, or null where the warehouse is not migrated that far yet. */
export async function recordedRolesIfAny<DB>(db: Kysely<DB>): Promise<RecordedRole[] | null> {
  const { rows } = await sql<{ exists: boolean }>`
    select to_regclass('etl.roles') is not null as exists`.execute(db);
  return rows[0]?.exists ? recordedRoles(db) : null;
}
