import { type Kysely, sql } from "kysely";

/**
 * COMMENT ON a table and its columns, for the BI users who browse the catalogue. Migrations
 * import this helper, so its behaviour is frozen: never change it, add another if needed.
 */
export async function commentOn(
  db: Kysely<unknown>,
  table: string,
  comment: string,
  columns: Readonly<Record<string, string>>,
): Promise<void> {
  const [schema, name] = table.split(".") as [string, string];
  const target = sql.table(`${schema}.${name}`);
  await sql`comment on table ${target} is ${sql.lit(comment)}`.execute(db);
  for (const [column, text] of Object.entries(columns)) {
    await sql`comment on column ${sql.id(schema, name, column)} is ${sql.lit(text)}`.execute(db);
  }
}
