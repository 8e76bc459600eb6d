import type { Kysely } from "kysely";

/** What a process remembers of each table of each warehouse, asked once and kept. */
export interface PerTableCache<T> {
  get(db: Kysely<unknown>, table: string): Promise<T>;
  /** What a change this process made leaves the table as (seen by its next look). */
  set(db: Kysely<unknown>, table: string, value: T): void;
}

/**
 * A cache of `load` by warehouse and table. A failed look-up (Postgres away) is asked again by
 * the next caller, not kept.
 */
export function perTableCache<T>(
  load: (db: Kysely<unknown>, table: string) => Promise<T>,
): PerTableCache<T> {
  const byDb = new WeakMap<object, Map<string, Promise<T>>>();
  const tablesOf = (db: Kysely<unknown>) => {
    let tables = byDb.get(db);
    if (!tables) {
      tables = new Map();
      byDb.set(db, tables);
    }
    return tables;
  };
  return {
    get(db, table) {
      const tables = tablesOf(db);
      let value = tables.get(table);
      if (!value) {
        value = load(db, table);
        value.catch(() => tables.delete(table));
        tables.set(table, value);
      }
      return value;
    },
    set(db, table, value) {
      tablesOf(db).set(table, Promise.resolve(value));
    },
  };
}
