import type { Expected } from "../api/untyped-values.js";
import { fieldAtPath } from "../api/read-values.js";
import { JsonDecimal } from "../json/json-body.js";
import { columnNameOf } from "./column-names.js";
import { fieldPath, forEachField, pathKey } from "./record-fields.js";
import { type ColumnKind, covers, holds, kindOfValue, storedValue, widen } from "./value-kinds.js";
import { type DiscoveredColumns, fingerprintOf, type WantedColumn } from "./discovered-columns.js";
import type { Row } from "../warehouse/row.js";
import { copyText } from "../warehouse/copy-text.js";

/** What the untyped report calls each kind. */
const EXPECTED: Readonly<Record<ColumnKind, Expected>> = {
  boolean: "boolean",
  bigint: "integer",
  numeric: "number",
  date: "day",
  timestamp: "instant",
  timestamptz: "instant",
  text: "text",
  jsonb: "json",
};

/**
 * Column names by field, for every load of the process: a partition's load is short and reads the
 * same few fields as the last, and a name is several regular expressions' work. Bounded, since the
 * fields are the upstream's to choose.
 */
const COLUMN_NAMES = new Map<string, string>();
const MAX_COLUMN_NAMES = 10_000;

function columnNameFor(key: string, name: string, inner?: string): string {
  let column = COLUMN_NAMES.get(key);
  if (column === undefined) {
    if (COLUMN_NAMES.size >= MAX_COLUMN_NAMES) COLUMN_NAMES.clear();
    column = columnNameOf(fieldPath(name, inner));
    COLUMN_NAMES.set(key, column);
  }
  return column;
}

/** A field of the table's records that no declared column holds, as the load has seen it. */
interface SeenField {
  readonly field: readonly string[];
  /** The kind its column must have for every value seen; null while only nulls came. */
  needed: ColumnKind | null;
  /** Where the value that last asked for a wider kind came from. */
  source: object | null;
  /** The text last seen, which `needed` holds: a partition's records mostly repeat a day. */
  lastHeld: string | undefined;
}

/** Whether a declared column and a field hold the same value (an id as a number or its text). */
function sameValue(declared: unknown, field: unknown): boolean {
  if (field === null || field === undefined) return declared === null || declared === undefined;
  if (declared === null || declared === undefined) return false;
  if (typeof field === "object" && !(field instanceof JsonDecimal)) return false;
  return copyText(declared) === copyText(field);
}

/**
 * Whether a declared column of the row holds the value as it is (`product_id` the record's `id`).
 * A field the declaration reads only to make a value of its own (a key made of two ids) is held
 * by no column: it gets one of its own.
 */
function holdsAnywhere(row: Row, value: unknown): boolean {
  for (const column in row) {
    if (column !== "raw" && sameValue(row[column], value)) return true;
  }
  return false;
}

/** A list or object: what a declaration reads of one it makes rows or values of (chart totals). */
function isContainer(value: unknown): boolean {
  return typeof value === "object" && value !== null && !(value instanceof JsonDecimal);
}

/**
 * The discovered columns of one table while a partition loads: each row's `raw` read for the
 * fields no declared column holds (read by the declaration into a column of the field's name or
 * of its value, or a same-named column holding the same value), the
 * kind each needs, and, at the write, every row given every discovered column of the table (null
 * where its record has no such field: the columns are a function of `raw`).
 */
export class ColumnDiscovery {
  readonly #covered: ReadonlySet<string> | null;
  #known: DiscoveredColumns;
  readonly #seen = new Map<string, SeenField>();
  /**
   * The text each discovered column (in the order of `#known`) last held: a partition's records
   * mostly repeat a day or an instant, and asking again whether it fits is a regular expression.
   */
  #lastHeld: unknown[] = [];

  constructor(covered: ReadonlySet<string> | null, known: DiscoveredColumns) {
    this.#covered = covered;
    this.#known = known;
  }

  /**
   * Reads a row's record; `source` is the page it came from, for the schema change's record. The
   * fields of the record that no column of the table holds, by their path's names.
   */
  note(row: Row, source: object): string[] {
    const unheld: string[] = [];
    forEachField(row.raw, (key, value, name, inner) => {
      if (!this.#noteField(row, key, value, name, inner, source)) return;
      if (!this.#known.has(key)) unheld.push(fieldPath(name, inner).join("."));
    });
    return unheld;
  }

  /** Notes a field's value; whether the field is one no declared column holds (non-null). */
  #noteField(
    row: Row,
    key: string,
    value: unknown,
    name: string,
    inner: string | undefined,
    source: object,
  ): boolean {
    const column = columnNameFor(key, name, inner);
    const named = Object.hasOwn(row, column);
    if (this.#covered?.has(key) && (named || isContainer(value) || holdsAnywhere(row, value))) {
      return false;
    }
    if ((named && sameValue(row[column], value)) || value === null || value === undefined) {
      return false;
    }
    let seen = this.#seen.get(key);
    if (!seen) {
      const needed = this.#known.get(key)?.kind ?? null;
      seen = { field: fieldPath(name, inner), needed, source: null, lastHeld: undefined };
      this.#seen.set(key, seen);
    }
    if (value === seen.lastHeld) return true;
    if (seen.needed === null) {
      seen.needed = kindOfValue(value);
      seen.source = source;
    } else if (!holds(seen.needed, value)) {
      seen.needed = widen(seen.needed, value);
      seen.source = source;
    }
    if (typeof value === "string") seen.lastHeld = value;
    return true;
  }

  /**
   * The columns the table must gain or widen for the rows noted, each with the source (the page)
   * of the value that asked for it.
   */
  wanted(): (WantedColumn & { readonly source: object | null })[] {
    const wanted: (WantedColumn & { source: object | null })[] = [];
    for (const [key, seen] of this.#seen) {
      const known = this.#known.get(key)?.kind;
      if (seen.needed === null || (known && covers(known, seen.needed))) continue;
      wanted.push({ field: seen.field, kind: seen.needed, source: seen.source });
    }
    return wanted;
  }

  /** Whether the table has a column of the field at `path`. */
  hasColumn(path: readonly string[]): boolean {
    return this.#known.has(pathKey(path));
  }

  /** The table's discovered columns as this load knows them. */
  known(): DiscoveredColumns {
    return this.#known;
  }

  /** The table's discovered columns as they now are (after a change, or another worker's). */
  learn(known: DiscoveredColumns): void {
    this.#known = known;
    this.#lastHeld = [];
  }

  /**
   * The version of the discovered columns' types, for the writer's statements: one made before
   * a column widened is not used after.
   */
  version(): string {
    return fingerprintOf(this.#known);
  }

  /**
   * The row with every discovered column of its table, each value as its column takes it. A
   * value its column cannot hold (the table did not evolve: schema_contract "freeze") is null
   * there, and told to `misfit`: it stays in raw.
   */
  complete(row: Row, misfit: (field: string, expected: Expected, value: unknown) => void): Row {
    if (this.#known.size === 0) return row;
    // Copied by Object.assign: a spread copy then given new fields was three times slower here,
    // and every row of every write is completed (npm run bench, "schema discovery per record").
    const completed: Record<string, unknown> = Object.assign({}, row);
    const lastHeld = this.#lastHeld;
    let index = 0;
    for (const { column, field, kind } of this.#known.values()) {
      const value = fieldAtPath(row.raw, field);
      if (value === lastHeld[index] || holds(kind, value)) {
        completed[column] = storedValue(kind, value);
        if (typeof value === "string") lastHeld[index] = value;
      } else {
        completed[column] = null;
        misfit(field.join("."), EXPECTED[kind], value);
      }
      index += 1;
    }
    return completed;
  }
}
