import { JsonDecimal } from "../json/json-body.js";

/** A field of a record: where it is (a name, or an object's name and its field's), and its value. */
export interface RecordField {
  readonly path: readonly [string] | readonly [string, string];
  readonly value: unknown;
}

/** Between a path's names in its key: no field name holds it (JSON text can, Postgres cannot). */
const SEPARATOR = "\u0000";

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

/**
 * Each field as recordFields gives them, with its path's key (pathKey) and its path made only
 * when asked: the load reads every record's fields, and most are seen many times.
 */
export function forEachField(
  record: unknown,
  visit: (key: string, path: () => readonly string[], value: unknown) => void,
): void {
  if (!isObject(record)) return;
  for (const [name, value] of Object.entries(record)) {
    if (!isObject(value)) {
      visit(name, () => [name], value);
      continue;
    }
    for (const [inner, innerValue] of Object.entries(value)) {
      visit(`${name}${SEPARATOR}${inner}`, () => [name, inner], innerValue);
    }
  }
}

/** The value of a record's field at `path` (one object down at most); undefined when absent. */
export function valueAt(record: unknown, path: readonly string[]): unknown {
  let value: unknown = record;
  for (const name of path) {
    if (!isObject(value)) return undefined;
    value = value[name];
  }
  return value;
}

/** A path as one text ("photo.id"), for sets of paths. */
export function pathKey(path: readonly string[]): string {
  return path.join(SEPARATOR);
}
