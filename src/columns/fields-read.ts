import { notingNothing } from "../api/untyped-values.js";
import { pathKey } from "./record-fields.js";

/** Names a reader may ask of any object without reading a field: left to the object itself. */
const OWN_NAMES = new Set(Object.getOwnPropertyNames(Object.prototype));

const toPrimitive = (hint: string): number | string => (hint === "string" ? "" : 0);

/**
 * The fields a declaration's columns read of a record, found by reading a record that answers
 * every field with another such record and notes the path asked. `read` returns what the row's
 * `raw` is taken from, and the paths are relative to it (`pathKey`s); null when the reader threw
 * or returned nothing read from the record, and nothing is known.
 * Declared columns read by name, whatever the value, so one reading tells them all.
 */
export function fieldsRead(read: (record: unknown) => unknown): ReadonlySet<string> | null {
  const asked: string[][] = [];
  const pathOf = new WeakMap<object, string[]>();
  const children = new Map<string, object>();
  const recording = (path: string[]): object => {
    const proxy = new Proxy(
      {},
      {
        get(target, property, receiver) {
          // Arithmetic on a field (a day plus a point's step) reads as 0, text as "".
          if (property === Symbol.toPrimitive) return toPrimitive;
          if (typeof property !== "string" || OWN_NAMES.has(property)) {
            return Reflect.get(target, property, receiver) as unknown;
          }
          return child([...path, property]);
        },
        has(target, property) {
          if (typeof property === "string") child([...path, property]);
          return false;
        },
      },
    );
    pathOf.set(proxy, path);
    return proxy;
  };
  const child = (path: string[]): object => {
    const key = pathKey(path);
    let found = children.get(key);
    if (!found) {
      asked.push(path);
      found = recording(path);
      children.set(key, found);
    }
    return found;
  };
  let result: unknown;
  try {
    result = notingNothing(() => read(recording([])));
  } catch {
    return null;
  }
  const from = typeof result === "object" && result !== null ? pathOf.get(result) : undefined;
  if (from === undefined) return null;
  return new Set(
    asked
      .filter((path) => path.length > from.length && from.every((name, at) => path[at] === name))
      .map((path) => pathKey(path.slice(from.length))),
  );
}
