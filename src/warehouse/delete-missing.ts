import { sql } from "kysely";
import type { KeptKeys } from "./kept-keys.js";
import type { Row, TableKey } from "./row.js";
import { parameter } from "./write-rows.js";
import { type WriterNote, writerNoteCondition } from "./writer-note.js";

/**
 * The statement that deletes the rows of one partition whose key is not among `keep`: rows in any
 * of `scopes` (each column -> value; an empty one is the whole table), all with the same columns.
 * The keys go once for all scopes. A scope value is compared with `=`, a null one with `is null`
 * (incomes whose period could not be read are a scope too): `is not distinct from` would hide
 * the key's index from the planner, and every partition's delete would read the whole table.
 * With `writer`, the note is taken as each row is removed (CASE: only for those).
 */
export function deleteMissingQuery(
  target: TableKey,
  scopes: readonly Row[],
  keep: KeptKeys,
  writer?: WriterNote,
) {
  const scoped = Object.keys(scopes[0] ?? {});
  const rest = target.key.filter((column) => !scoped.includes(column));
  const inScope = (scope: Row) =>
    scoped.length === 0
      ? sql`true`
      : sql`(${sql.join(
          scoped.map((c) =>
            scope[c] === null || scope[c] === undefined
              ? sql`t.${sql.ref(c)} is null`
              : sql`t.${sql.ref(c)} = ${parameter(scope[c])}`,
          ),
          sql` and `,
        )})`;
  const kept = keptCondition(rest, keep);
  const removed = writer
    ? sql`case when ${kept} then false else ${writerNoteCondition(writer)} end`
    : sql`not ${kept}`;
  return sql`delete from ${sql.table(target.table)} as t
    where (${sql.join(scopes.map(inScope), sql` or `)}) and ${removed}`;
}

/**
 * Whether a row of the scope is among `keep`, by the key columns the scope leaves (`rest`): with
 * none, the scope is one row, kept if it was written at all. One column is `= any` of the array,
 * which Postgres looks up in a hash of it whatever it expects of the scope; a correlated `exists`
 * is rescanned for every row when the planner expects one, as it does without statistics (a day
 * of 1,000 items was 500,000 comparisons).
 */
function keptCondition(rest: readonly string[], keep: KeptKeys) {
  const [only] = rest;
  if (keep.size === 0) return sql`false`;
  if (only === undefined) return sql`true`;
  if (rest.length === 1)
    return sql`t.${sql.ref(only)}::text = any(${keep.textArray(only)}::text[])`;
  return sql`exists (
    select 1 from unnest(${sql.join(rest.map((c) => sql`${keep.textArray(c)}::text[]`))})
      as k(${sql.join(rest.map((c) => sql.ref(c)))})
    where ${sql.join(
      rest.map((c) => sql`k.${sql.ref(c)} = t.${sql.ref(c)}::text`),
      sql` and `,
    )})`;
}
