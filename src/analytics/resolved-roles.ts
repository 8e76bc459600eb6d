import { type Kysely, type RawBuilder, sql } from "kysely";
import { roleValue } from "./role-candidates.js";
import { type Resolution, settleHint } from "./role-decision.js";
import { type Role, roleKey } from "./roles.js";

/** The SQL type a role's value has in the views, whatever its column's type. */
const VALUE_TYPE = { count: "numeric", number: "numeric", text: "text", instant: "timestamptz" };

/**
 * The roles as resolved, for the views: each role's value read from its column, or a typed null
 * where it is not resolved, and the sentence a view's comment gives of where a figure comes from.
 */
export class ResolvedRoles {
  readonly #byKey: ReadonlyMap<string, Resolution>;

  constructor(resolutions: readonly Resolution[]) {
    this.#byKey = new Map(resolutions.map((r) => [`${r.role}\u0000${r.scope}`, r]));
  }

  resolution(role: Role, scope = ""): Resolution | undefined {
    return this.#byKey.get(`${role.name}\u0000${scope}`);
  }

  /** The role's value in `scope`, of its view type; null of that type when not resolved. */
  value(role: Role, scope = "", alias = ""): RawBuilder<unknown> {
    const resolved = this.resolution(role, scope);
    const type = sql.raw(VALUE_TYPE[role.values]);
    if (!resolved?.column || resolved.type === null) return sql`null::${type}`;
    const candidate = { column: resolved.column, field: [], type: resolved.type };
    const value = roleValue(candidate, role.values, alias);
    // A number column is read as it is: a cast of every row would cost the views' sums.
    const numeric = ["bigint", "integer", "numeric"].includes(resolved.type);
    return numeric && VALUE_TYPE[role.values] === "numeric" ? value : sql`(${value})::${type}`;
  }

  /**
   * The role's value where it depends on a row's scope: `case <scope> when 'a.b' then … end`,
   * or the one column when every scope reads the same.
   */
  scopedValue(role: Role, scopeOf: RawBuilder<unknown>, scopes: readonly string[]) {
    const values = scopes.map((scope) => ({ scope, sql: this.value(role, scope) }));
    const columns = new Set(scopes.map((scope) => this.resolution(role, scope)?.column ?? null));
    const [first] = values;
    if (columns.size === 1 && first && !columns.has(null)) return first.sql;
    return sql`(case ${scopeOf} ${sql.join(
      values.map((v) => sql`when ${sql.lit(v.scope)} then ${v.sql}`),
      sql` `,
    )} end)`;
  }

  /**
   * Where a figure comes from, for a view column's comment: the upstream's field and its column,
   * and how it was chosen; or why it is null and what settles it.
   */
  source(role: Role, scopes: readonly string[] = [""]): string {
    const parts = scopes.map((scope) => {
      const r = this.resolution(role, scope);
      const where = scope === "" ? "" : ` (${scope})`;
      if (!r?.column) {
        const why = r ? `${r.how}: ${r.summary}` : "not resolved yet";
        return `null${where}: ${role.meaning} is ${why}; ${settleHint(role, scope)}`;
      }
      return `the upstream's field "${r.field}"${where} (${role.table}.${r.column}, ${r.how} as ${roleKey(role, scope)})`;
    });
    return [...new Set(parts)].join("; ");
  }
}

/** The roles as etl.roles recorded them, with their columns' types as they are now. */
export async function rolesAsRecorded(trx: Kysely<unknown>): Promise<ResolvedRoles> {
  const { rows } = await sql<Omit<Resolution, "evidence">>`
    select r.role, r.scope, r.table_name as "table", r.column_name as "column", r.field,
           format_type(a.atttypid, null) as "type", r.how, r.summary
      from etl.roles r
      left join pg_attribute a
        on a.attrelid = to_regclass(r.table_name) and a.attname = r.column_name
       and not a.attisdropped`.execute(trx);
  const evidence = { cases: "", test: "", rows: 0, candidates: [] };
  return new ResolvedRoles(rows.map((row) => ({ ...row, evidence })));
}
