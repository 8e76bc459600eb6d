import { type Kysely, sql } from "kysely";

/**
 * COMMENT ON a view and its columns, for the BI users who browse the catalogue. The columns given
 * must be exactly the view's columns: a column left without a comment, or a comment for a column
 * the view does not have, fails the migration. Migrations import this helper, so its behaviour is
 * frozen: never change it, add another if needed.
 */
export async function commentOnView(
  db: Kysely<unknown>,
  view: string,
  comment: string,
  columns: Readonly<Record<string, string>>,
): Promise<void> {
  const [schema, name] = view.split(".") as [string, string];
  const { rows } = await sql<{ column: string }>`
    select a.attname as column
      from pg_attribute a
     where a.attrelid = ${`${schema}.${name}`}::regclass and a.attnum > 0 and not a.attisdropped
     order by a.attnum`.execute(db);
  const actual = rows.map((row) => row.column);
  const missing = actual.filter((column) => !(column in columns));
  const unknown = Object.keys(columns).filter((column) => !actual.includes(column));
  if (missing.length > 0 || unknown.length > 0) {
    throw new Error(
      `${view}: columns without a comment: [${missing.join(", ")}]; comments for no column: [${unknown.join(", ")}]`,
    );
  }
  await sql`comment on view ${sql.table(`${schema}.${name}`)} is ${sql.lit(comment)}`.execute(db);
  for (const [column, text] of Object.entries(columns)) {
    await sql`comment on column ${sql.id(schema, name, column)} is ${sql.lit(text)}`.execute(db);
  }
}
