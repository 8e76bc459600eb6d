import { type Kysely, sql } from "kysely";
import { type FreeColumnName, quotedField, whyNamed } from "./free-column-name.js";
import type { ColumnKind } from "./value-kinds.js";
import { pathLiteral, valueFromRaw } from "./stored-field-values.js";

// The statements a table's column changes are made and recorded with, a table's at once: a
// first sync adds a hundred columns while the partitions of their tables wait for the lock.

/** A row's field path, sent as a JSON array in a jsonb recordset, as the text[] it is stored as. */
const FIELD_OF_ROW = sql`array(select jsonb_array_elements_text(c.field))`;

/** Who asked for a change, for etl.schema_changes. */
export interface ChangeOrigin {
  readonly stream: string;
  readonly partition: string;
  readonly attemptId: string;
}

function comment(field: readonly string[], stream: string, name: FreeColumnName): string {
  const why = whyNamed(name);
  return `The upstream's field ${quotedField(field)}, as ${stream} received it (a discovered column: typed from its values, widened when a later value needed it; etl.schema_changes has its history).${why === null ? "" : ` ${why}`} The record as received is in raw.`;
}

/** A column to add for a field no column holds yet, named by freeColumnName. */
export interface ColumnToAdd {
  readonly field: readonly string[];
  readonly to: ColumnKind;
  readonly named: FreeColumnName;
  /** The kind of the values the table's rows already keep in `raw` at the field; null if none. */
  readonly stored: ColumnKind | null;
}

/**
 * Adds the columns of fields no column holds yet, in one ALTER TABLE with their comments (each
 * names its field and why its name differs), records them, and fills each for the rows whose raw
 * carries its field. DDL takes no parameters, so the text has none and goes as one message
 * (Postgres runs a message of several statements only when it carries no parameter).
 */
export async function addColumns(
  db: Kysely<unknown>,
  table: string,
  columns: readonly ColumnToAdd[],
  stream: string,
): Promise<void> {
  if (columns.length === 0) return;
  const target = sql.table(table);
  const adds = columns.map(
    ({ named, to }) => sql`add column ${sql.ref(named.column)} ${sql.raw(to)}`,
  );
  const comments = columns.map(
    ({ named, field }) =>
      sql`comment on column ${target}.${sql.ref(named.column)} is ${sql.lit(comment(field, stream, named))}`,
  );
  await sql`alter table ${target} ${sql.join(adds)}; ${sql.join(comments, sql`; `)}`.execute(db);
  await sql`insert into etl.discovered_columns (table_name, column_name, field, data_type)
    select ${table}, c.name, ${FIELD_OF_ROW}, c.kind
      from jsonb_to_recordset(${JSON.stringify(
        columns.map(({ named, field, to }) => ({ name: named.column, field, kind: to })),
      )}::jsonb) as c(name text, field jsonb, kind text)`.execute(db);
  for (const { named, field, to, stored } of columns) {
    if (stored === null) continue;
    await sql`update ${target} set ${sql.ref(named.column)} = ${valueFromRaw(field, to)}
      where raw #> ${pathLiteral(field)} is not null`.execute(db);
  }
}

/** A change to record in etl.schema_changes. */
export interface ChangeToRecord {
  readonly column: string;
  readonly field: readonly string[];
  readonly change: "added" | "widened";
  readonly from: ColumnKind | null;
  readonly to: ColumnKind;
}

/** Records the changes made to `table` in one statement; their etl.schema_changes ids, in order. */
export async function recordChanges(
  db: Kysely<unknown>,
  table: string,
  changes: readonly ChangeToRecord[],
  origin: ChangeOrigin,
): Promise<string[]> {
  if (changes.length === 0) return [];
  const { rows } = await sql<{ change_id: string; column_name: string }>`
    with made as (
      insert into etl.schema_changes
        (table_name, column_name, field, change, from_type, to_type, stream, partition, attempt_id)
      select ${table}, c.col, ${FIELD_OF_ROW}, c.change, c.from_type, c.to_type,
             ${origin.stream}, ${origin.partition}, ${origin.attemptId}
        from jsonb_to_recordset(${JSON.stringify(
          changes.map(({ column, field, change, from, to }) => ({
            col: column,
            field,
            change,
            from_type: from,
            to_type: to,
          })),
        )}::jsonb) as c(col text, field jsonb, change text, from_type text, to_type text)
      returning change_id, column_name)
    select change_id::text as change_id, column_name from made`.execute(db);
  const ids = new Map(rows.map((row) => [row.column_name, row.change_id]));
  return changes.map(({ column }) => String(ids.get(column)));
}

/** Whether `table` holds no row. */
export async function isEmpty(db: Kysely<unknown>, table: string): Promise<boolean> {
  const { rows } = await sql<{ empty: boolean }>`
    select not exists (select 1 from ${sql.table(table)}) as empty`.execute(db);
  return rows[0]?.empty === true;
}

/** Names the stored response whose records asked for each change, once that response landed. */
export async function linkSchemaChanges<DB>(
  trx: Kysely<DB>,
  links: readonly { readonly changeId: string; readonly responseId: string }[],
): Promise<void> {
  if (links.length === 0) return;
  await sql`update etl.schema_changes s set response_id = l.response_id
      from unnest(${links.map((l) => l.changeId)}::bigint[], ${links.map((l) => l.responseId)}::bigint[])
        as l(change_id, response_id)
     where s.change_id = l.change_id`.execute(trx);
}
