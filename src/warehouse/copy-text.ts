import { jsonText } from "../json/json-body.js";
import type { Row } from "./row.js";

/** Rows encoded at a time for COPY: Postgres parses one chunk while the next is encoded. */
const COPY_CHUNK_ROWS = 1_000;

/** Rows in COPY's text format (tab-separated, \\N for null, backslash escapes), in chunks. */
export function* copyData(rows: readonly Row[], columns: readonly string[]): Generator<string> {
  for (let start = 0; start < rows.length; start += COPY_CHUNK_ROWS) {
    let chunk = "";
    for (const row of rows.slice(start, start + COPY_CHUNK_ROWS)) {
      chunk += `${columns.map((column) => copyField(row[column])).join("\t")}\n`;
    }
    yield chunk;
  }
}

function copyField(value: unknown): string {
  if (value === null || value === undefined) return "\\N";
  return copyText(value).replace(COPY_SPECIAL, (c) => COPY_ESCAPES[c] ?? c);
}

/** A value as Postgres reads it, the way node-postgres would have sent it as a parameter. */
export function copyText(value: unknown): string {
  switch (typeof value) {
    case "string":
      return value;
    case "number":
    case "bigint":
    case "boolean":
      return String(value);
    default:
      return value instanceof Date ? value.toISOString() : jsonText(value);
  }
}

const COPY_SPECIAL = /[\\\n\r\t]/g;
const COPY_ESCAPES: Record<string, string> = {
  "\\": "\\\\",
  "\n": "\\n",
  "\r": "\\r",
  "\t": "\\t",
};
