import { JsonDecimal } from "../json/json-body.js";

/** A field of a record: where it is (a name, or an object's name and its field's), and its value. */
export interface RecordField {
  readonly path: readonly [string] | readonly [string, string];
  readonly value: unknown;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return (
    value !== null &&
    typeof value === "object" &&
    !Array.isArray(value) &&
    !(value instanceof JsonDecimal)
  );
}

/**
 * The fields of a record as its discovered columns take them: each field, and an object's fields
 * one level down in its stead (`photo: {id}` is `photo.id`), as dlt flattens them. Deeper objects
 * and lists are values of their own (a jsonb column): a list of objects is kept whole beside the
 * row rather than made a table, so its order and every field of its items stay as received.
 */
export function recordFields(record: unknown): RecordField[] {
  if (!isObject(record)) return [];
  const fields: RecordField[] = [];
  for (const [name, value] of Object.entries(record)) {
    if (!isObject(value)) {
      fields.push({ path: [name], value });
      continue;
    }
    for (const [inner, innerValue] of Object.entries(value)) {
      fields.push({ path: [name, inner], value: innerValue });
    }
  }
  return fields;
}

/** A path as one text ("photo.id"), for sets of paths. */
export function pathKey(path: readonly string[]): string {
  return path.join("\u0000");
}
