import { asRecord } from "../json/json-record.js";

/** A field of a record: where it is (a name, or an object's name and its field's), and its value. */
export interface RecordField {
  readonly path: readonly [string] | readonly [string, string];
  readonly value: unknown;
}

/** Between a path's names in its key: no field name holds it (JSON text can, Postgres cannot). */
const SEPARATOR = "\u0000";

/**
 * The fields of a record as its discovered columns take them: each field, and an object's fields
 * one level down in its stead (`photo: {id}` is `photo.id`), as dlt flattens them. Deeper objects
 * and lists are values of their own (a jsonb column): a list of objects is kept whole beside the
 * row rather than made a table, so its order and every field of its items stay as received.
 */
export function recordFields(record: unknown): RecordField[] {
  const fields: RecordField[] = [];
  forEachField(record, (_key, path, value) => fields.push({ path: path(), value }));
  return fields;
}

/**
 * Each field of a record as its discovered columns take them, with its path's key (pathKey) and its path made only
 * when asked: the load reads every record's fields, and most are seen many times.
 */
export function forEachField(
  record: unknown,
  visit: (key: string, path: () => RecordField["path"], value: unknown) => void,
): void {
  const fields = asRecord(record);
  if (!fields) return;
  for (const [name, value] of Object.entries(fields)) {
    const object = asRecord(value);
    if (!object) {
      visit(name, () => [name], value);
      continue;
    }
    for (const [inner, innerValue] of Object.entries(object)) {
      visit(`${name}${SEPARATOR}${inner}`, () => [name, inner], innerValue);
    }
  }
}

/** A path as one text ("photo.id"), for sets of paths. */
export function pathKey(path: readonly string[]): string {
  return path.join(SEPARATOR);
}
