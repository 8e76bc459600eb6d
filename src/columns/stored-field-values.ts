import { type Kysely, type RawBuilder, sql } from "kysely";
import { JsonDecimal } from "../json/json-body.js";
import { type ColumnKind, joinKinds, kindOfValue } from "./value-kinds.js";

/** Distinct values read at a time: the kind is kept, never the values. */
const BATCH = 5_000;

/** A text[] literal: DDL takes no parameters. */
export function pathLiteral(path: readonly string[]): RawBuilder<unknown> {
  return sql`array[${sql.join(path.map((name) => sql.lit(name)))}]::text[]`;
}

/** A value of `raw` at a path, as the reader of a body would have it (a number's exact text). */
function valueOf(type: string, text: string): unknown {
  switch (type) {
    case "number":
      return new JsonDecimal(text);
    case "boolean":
      return text === "true";
    case "string":
      return text;
    default:
      return {};
  }
}

/**
 * The narrowest kind that holds every value the table's rows keep in `raw` at `path` (null when
 * none keeps one): a column added or widened for the field is filled from them, so it must hold
 * them all, whatever era wrote the rows (a frozen contract, the release before discovery).
 * Read in batches of distinct values, stopping at jsonb, which holds anything.
 */
export async function storedFieldKind(
  db: Kysely<unknown>,
  table: string,
  path: readonly string[],
): Promise<ColumnKind | null> {
  const at = pathLiteral(path);
  const { rows: containers } = await sql<{ found: boolean }>`
    select exists (select 1 from ${sql.table(table)}
                    where jsonb_typeof(raw #> ${at}) in ('object', 'array')) as found`.execute(db);
  if (containers[0]?.found) return "jsonb";
  let kind: ColumnKind | null = null;
  let after: string | null = null;
  for (;;) {
    const { rows } = await sql<{ v: string; type: string; text: string }>`
      select v::text as v, jsonb_typeof(v) as type, v #>> '{}' as text
        from (select distinct raw #> ${at} as v from ${sql.table(table)}
               where jsonb_typeof(raw #> ${at}) in ('number', 'string', 'boolean')) d
       where ${after === null ? sql`true` : sql`v > ${after}::jsonb`}
       order by v limit ${BATCH}`.execute(db);
    for (const { type, text } of rows) {
      const valueKind = kindOfValue(valueOf(type, text));
      if (valueKind !== null) kind = kind === null ? valueKind : joinKinds(kind, valueKind);
    }
    const last = rows.at(-1);
    if (rows.length < BATCH || last === undefined) return kind;
    after = last.v;
  }
}

/**
 * Each row's value of the field at `path` as a column of `kind` takes it, from `raw`: text as the
 * upstream wrote it (a number's digits), JSON as received; null where the record has none.
 */
export function valueFromRaw(path: readonly string[], kind: ColumnKind): RawBuilder<unknown> {
  const at = pathLiteral(path);
  if (kind === "jsonb") return sql`nullif(raw #> ${at}, 'null'::jsonb)`;
  return sql`(raw #>> ${at})::${sql.raw(kind)}`;
}
