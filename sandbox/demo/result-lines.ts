import type pg from "pg";
import { table } from "../../src/cli/output.js";

/**
 * A query's answer as a table: its columns in the order the SQL selects them, under their names,
 * so what is printed reads as the query that is shown.
 */
export function resultLines(result: pg.QueryResult): string[] {
  const names = result.fields.map((field) => field.name);
  const cells = (row: Record<string, unknown>) => names.map((name) => cellText(row[name]));
  return table([names, ...result.rows.map(cells)]);
}

/** A value as psql would show it: nothing for null, a time in ISO form, JSON as its text. */
function cellText(value: unknown): string {
  if (value === null || value === undefined) return "";
  if (value instanceof Date) return value.toISOString();
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return JSON.stringify(value);
}
