import { type Kysely, type RawBuilder, sql } from "kysely";
import type { Role, RoleValues } from "./roles.js";

/** A typed column that may carry a role: its name, the upstream's field, its Postgres type. */
export interface Candidate {
  readonly column: string;
  /** The field as the upstream names it (etl.discovered_columns.field); the column's for ours. */
  readonly field: readonly string[];
  readonly type: string;
}

/** The Postgres types whose values a role's values may be read from. */
const TYPES: Readonly<Record<RoleValues, readonly string[]>> = {
  // Whole numbers sent as strings are kept as text (they may be codes): the data decides.
  count: ["bigint", "integer", "numeric", "text"],
  number: ["bigint", "integer", "numeric", "text"],
  text: ["text"],
  instant: ["timestamp with time zone", "timestamp without time zone", "date"],
};

/** The table's columns that may carry `role`, in the table's order. */
export async function candidatesOf(db: Kysely<unknown>, role: Role): Promise<Candidate[]> {
  const { rows } = await sql<{ column: string; field: string[] | null; type: string }>`
    select a.attname as column, d.field, format_type(a.atttypid, null) as type
      from pg_attribute a
      left join etl.discovered_columns d
        on d.table_name = ${role.table} and d.column_name = a.attname
     where a.attrelid = to_regclass(${role.table}) and a.attnum > 0 and not a.attisdropped
     order by a.attnum`.execute(db);
  return rows
    .filter((row) => !role.excluded.includes(row.column))
    .filter((row) => TYPES[role.values].includes(row.type))
    .map((row) => ({ column: row.column, field: row.field ?? [row.column], type: row.type }));
}

/** A field as the configuration and the evidence write it: `playlist.followerCount`. */
export function fieldName(field: readonly string[]): string {
  return field.join(".");
}

/**
 * A candidate's values as the role reads them, or null where a value is not one: a count is a
 * whole number (a fraction or a code is no count, and is never rounded into one), a number is a
 * number, a text is not empty.
 */
export function roleValue(
  candidate: Candidate,
  values: RoleValues,
  alias = "",
): RawBuilder<unknown> {
  const ref = alias === "" ? sql.ref(candidate.column) : sql.ref(`${alias}.${candidate.column}`);
  // A column widened since it was chosen (to text, or jsonb) is read through its text.
  if (values === "text") {
    return candidate.type === "text" ? sql`nullif(${ref}, '')` : sql`nullif(${ref}::text, '')`;
  }
  if (values === "instant") return ref;
  if (candidate.type === "bigint" || candidate.type === "integer") return ref;
  if (candidate.type === "numeric") {
    return values === "count" ? sql`(case when ${ref} = trunc(${ref}) then ${ref} end)` : ref;
  }
  const pattern = values === "count" ? "^-?[0-9]{1,18}$" : "^-?[0-9]{1,30}(\\.[0-9]{1,30})?$";
  return sql`(case when ${ref}::text ~ ${sql.lit(pattern)} then ${ref}::text::numeric end)`;
}
