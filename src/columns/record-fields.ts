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
  forEachField(record, (_key, value, name, inner) =>
    fields.push({ path: fieldPath(name, inner), value }),
  );
  return fields;
}

/**
 * Each field of a record as its discovered columns take them: its path's key (pathKey), its value,
 * and its path's names (`inner` for an object's field). No closure and no path is made per field,
 * and a nested field's key is made once: the load reads every record's fields, and most are seen
 * many times.
 */
export function forEachField(
  record: unknown,
  visit: (key: string, value: unknown, name: string, inner?: string) => void,
): void {
  const fields = asRecord(record);
  if (!fields) return;
  for (const name in fields) {
    const value = fields[name];
    const object = asRecord(value);
    if (!object) {
      visit(name, value, name);
      continue;
    }
    for (const inner in object) visit(nestedKey(name, inner), object[inner], name, inner);
  }
}

/**
 * The keys of nested fields, made once per process: a key made anew for each record is hashed anew
 * at each of the several lookups a field takes. At most MAX_NESTED_KEYS, all forgotten at once
 * when full: the fields are the upstream's to choose (an object keyed by ids has a field per id).
 */
const NESTED_KEYS = new Map<string, Map<string, string>>();
const MAX_NESTED_KEYS = 10_000;
let nestedKeys = 0;

function nestedKey(name: string, inner: string): string {
  let keys = NESTED_KEYS.get(name);
  if (keys === undefined) {
    keys = new Map();
    NESTED_KEYS.set(name, keys);
  }
  let key = keys.get(inner);
  if (key === undefined) {
    key = `${name}${SEPARATOR}${inner}`;
    if (nestedKeys >= MAX_NESTED_KEYS) {
      NESTED_KEYS.clear();
      NESTED_KEYS.set(name, keys);
      keys.clear();
      nestedKeys = 0;
    }
    keys.set(inner, key);
    nestedKeys += 1;
  }
  return key;
}

/** The path of a field as forEachField names it. */
export function fieldPath(name: string, inner?: string): RecordField["path"] {
  return inner === undefined ? [name] : [name, inner];
}

/** A path as one text ("photo.id"), for sets of paths. */
export function pathKey(path: readonly string[]): string {
  return path.join(SEPARATOR);
}
