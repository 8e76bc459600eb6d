import { type Kysely, sql } from "kysely";
import { DeepJson, JsonDecimal, jsonText } from "../json/json-body.js";
import type { Expected } from "../api/untyped-values.js";
import type { Row } from "./row.js";
import { perTableCache } from "./per-table-cache.js";

/** A column as Postgres declares it: its type (`udt_name`: int4, numeric, _text…) and length. */
export interface ColumnType {
  readonly type: string;
  /** varchar(n)'s n; null when the type takes any length. */
  readonly maxLength: number | null;
}

export type ColumnTypes = ReadonlyMap<string, ColumnType>;

/**
 * The columns of `table` (schema-qualified) as Postgres declares them, asked once per warehouse
 * and table: the declared types change only by a migration, and a release that changes one
 * restarts its workers (see docs/operations.md). Discovered columns are not read by type here.
 */
const declaredTypes = perTableCache(async (db, table) => {
  const [schema = "public", name = table] = table.includes(".") ? table.split(".") : [];
  const { rows } = await sql<{ column_name: string; udt_name: string; max_length: number | null }>`
    select column_name, udt_name, character_maximum_length as max_length
      from information_schema.columns where table_schema = ${schema} and table_name = ${name}`.execute(
    db,
  );
  return new Map(rows.map((r) => [r.column_name, { type: r.udt_name, maxLength: r.max_length }]));
});

export function columnTypes<DB>(db: Kysely<DB>, table: string): Promise<ColumnTypes> {
  return declaredTypes.get(db as Kysely<unknown>, table);
}

/** A value a column could not hold, and what its reader would have called the column's type. */
export interface Unstorable {
  readonly column: string;
  readonly expected: Expected;
  /** The value as read; for JSON, the part of it that had to change. */
  readonly value: unknown;
}

/* eslint-disable no-control-regex -- NUL is one of the characters looked for */
/** What Postgres refuses in any text: NUL, and half of a surrogate pair (invalid UTF-8). */
const SUSPECT_CHARS = /[\u0000\ud800-\udfff]/;
const UNSTORABLE_CHARS =
  /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
/* eslint-enable no-control-regex */

/** Whether Postgres can hold `text` as text: no NUL, no lone surrogate. */
export function storableText(text: string): boolean {
  if (!SUSPECT_CHARS.test(text)) return true;
  UNSTORABLE_CHARS.lastIndex = 0;
  return !UNSTORABLE_CHARS.test(text);
}

/** `text` with every character Postgres cannot hold replaced by U+FFFD, the replacement mark. */
export function storableTextOf(text: string): string {
  return storableText(text) ? text : text.replace(UNSTORABLE_CHARS, "\ufffd");
}

const INTEGER = /^[+-]?\d+$/;
const INTEGER_BITS: Record<string, number> = { int2: 15, int4: 31, int8: 63 };

/** Whether an integer column of `bits` (and a sign) holds a value. */
function integerFitter(bits: number): (value: unknown) => boolean {
  // A JavaScript number (most values) is compared as it is: 2^15, 2^31 and 2^63 are exact doubles.
  const limit = 2 ** bits;
  const bigLimit = 1n << BigInt(bits);
  return (value) => {
    if (typeof value === "number")
      return Number.isInteger(value) && value >= -limit && value < limit;
    const text =
      typeof value === "bigint"
        ? value.toString()
        : value instanceof JsonDecimal
          ? value.text
          : typeof value === "string"
            ? value.trim()
            : null;
    if (text === null || !INTEGER.test(text)) return false;
    const n = BigInt(text);
    return n >= -bigLimit && n < bigLimit;
  };
}

const PLAIN_DECIMAL = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)$/;
const DECIMAL_PARTS = /^[+-]?(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/;
/** numeric's limits: digits before the point, and after it. */
const NUMERIC_WEIGHT = 131_072;
const NUMERIC_SCALE = 16_383;

/** Whether numeric takes this decimal text: within its digits before and after the point. */
function numericFits(text: string): boolean {
  // Without an exponent, a text this short cannot pass either limit: only its form matters.
  if (text.length <= NUMERIC_SCALE && !text.includes("e") && !text.includes("E")) {
    return PLAIN_DECIMAL.test(text.trim());
  }
  const parts = DECIMAL_PARTS.exec(text.trim());
  if (!parts) return false;
  const whole = (parts[1] ?? "").replace(/^0+/, "");
  const fraction = parts[2] ?? "";
  if (whole === "" && fraction === "" && !/\d/.test(text)) return false;
  const exponent = Number(parts[3] ?? "0");
  // Zero fits whatever its exponent says.
  if (!/[1-9]/.test(whole + fraction)) return fraction.length - exponent <= NUMERIC_SCALE;
  return whole.length + exponent <= NUMERIC_WEIGHT && fraction.length - exponent <= NUMERIC_SCALE;
}

function numberText(value: unknown): string | null {
  if (typeof value === "number") return Number.isFinite(value) ? String(value) : null;
  if (value instanceof JsonDecimal) return value.text;
  return typeof value === "string" || typeof value === "bigint" ? String(value) : null;
}

/** float8 (and float4) refuse what overflows them, and what underflows to zero from non-zero. */
function floatFits(value: unknown, max: number): boolean {
  const text = numberText(value);
  if (text === null) return false;
  const n = Number(text);
  return (
    Number.isFinite(n) &&
    Math.abs(n) <= max &&
    (n !== 0 || !/[1-9]/.test(text.split(/e/i)[0] ?? ""))
  );
}

/** The earliest year timestamptz and date take (4713 BC, which JavaScript calls -4712). */
const EARLIEST_YEAR = -4712;

function instantFits(value: unknown): boolean {
  if (value instanceof Date) {
    return !Number.isNaN(value.getTime()) && value.getUTCFullYear() >= EARLIEST_YEAR;
  }
  // Readers give days and instants as ISO text, years 0001 on; a year 0000 does not exist.
  return typeof value === "string" && storableText(value) && !value.startsWith("0000");
}

const EXPECTED_OF: Record<string, Expected> = {
  int2: "integer",
  int4: "integer",
  int8: "integer",
  numeric: "number",
  float4: "number",
  float8: "number",
  date: "day",
  timestamptz: "instant",
  timestamp: "instant",
  bool: "boolean",
  jsonb: "json",
  json: "json",
};

const FLOAT4_MAX = 3.4028234663852886e38;

/** Whether a column of `type` can hold a value (never JSON: see storableJson). */
function fitter({ type, maxLength }: ColumnType): (value: unknown) => boolean {
  const bits = INTEGER_BITS[type];
  if (bits !== undefined) return integerFitter(bits);
  switch (type) {
    case "numeric":
      return (value) => {
        const text = numberText(value);
        return text !== null && numericFits(text);
      };
    case "float8":
      return (value) => floatFits(value, Number.MAX_VALUE);
    case "float4":
      return (value) => floatFits(value, FLOAT4_MAX);
    case "date":
    case "timestamptz":
    case "timestamp":
      return instantFits;
    case "bool":
      return () => true;
  }
  return (value) =>
    typeof value !== "string" ||
    (storableText(value) && (maxLength === null || [...value].length <= maxLength));
}

/** What storableRow asks of a column's values, decided once for a table's types. */
interface ColumnCheck {
  readonly expected: Expected;
  /** Whether a value (not null) can be held as it is; "json": see storableJson. */
  readonly fits: ((value: unknown) => boolean) | "json";
}

const checksOfTypes = new WeakMap<ColumnTypes, ReadonlyMap<string, ColumnCheck>>();

/** The checks of a table's columns, made once per look-up of its types (see columnTypes). */
function checksOf(types: ColumnTypes): ReadonlyMap<string, ColumnCheck> {
  let checks = checksOfTypes.get(types);
  if (!checks) {
    checks = new Map(
      [...types].map(([column, type]) => [
        column,
        {
          expected: EXPECTED_OF[type.type] ?? "text",
          fits: type.type === "jsonb" || type.type === "json" ? "json" : fitter(type),
        },
      ]),
    );
    checksOfTypes.set(types, checks);
  }
  return checks;
}

/** What storableJson gives back: the value Postgres can hold, and what had to change. */
interface StorableJson {
  readonly value: unknown;
  /** The strings and numbers changed, and the top-level parts holding one kept as text. */
  readonly changed: unknown[];
}

/**
 * A JSON value as jsonb can hold it: strings (and keys) with NUL or a lone surrogate get U+FFFD
 * for those characters, and a number beyond numeric's digits becomes its text. A part nested too
 * deep was kept as its text when the body was parsed (DeepJson): that is reported here too.
 * Everything else is untouched, and a value that needed nothing is returned as it came (no copy).
 */
export function storableJson(value: unknown): StorableJson {
  if (holdsOnlyStorable(value)) return { value, changed: [] };
  const changed: unknown[] = [];
  // A part too deep to name is reported as the top-level part holding it, which a report can.
  const visit = (node: unknown, top: unknown): unknown => {
    if (typeof node === "string") {
      if (storableText(node)) return node;
      changed.push(node);
      return storableTextOf(node);
    }
    if (node instanceof JsonDecimal) {
      if (numericFits(node.text)) return node;
      changed.push(node);
      return node.text;
    }
    if (node instanceof DeepJson) {
      changed.push(top);
      return node;
    }
    if (node === null || typeof node !== "object" || node instanceof Date) return node;
    const isTop = node === value;
    if (Array.isArray(node)) {
      let copy: unknown[] | null = null;
      for (const [i, child] of node.entries()) {
        const kept = visit(child, isTop ? child : top);
        if (kept !== child) (copy ??= [...(node as unknown[])])[i] = kept;
      }
      return copy ?? node;
    }
    let copy: Record<string, unknown> | null = null;
    for (const [key, child] of Object.entries(node)) {
      const kept = visit(child, isTop ? child : top);
      const name = storableText(key) ? key : storableTextOf(key);
      if (name !== key) changed.push(key);
      if (kept !== child || name !== key) {
        copy ??= { ...(node as Record<string, unknown>) };
        if (name !== key) delete copy[key];
        copy[name] = kept;
      }
    }
    return copy ?? node;
  };
  return { value: visit(value, value), changed };
}

/**
 * Whether jsonb holds a JSON value as it is: a walk that allocates nothing, for every record's
 * raw; only a value it finds wanting is walked again to be changed.
 */
function holdsOnlyStorable(node: unknown): boolean {
  if (typeof node === "string") return storableText(node);
  if (typeof node !== "object" || node === null) return true;
  if (Array.isArray(node)) {
    for (const child of node) if (!holdsOnlyStorable(child)) return false;
    return true;
  }
  if (node instanceof JsonDecimal) return numericFits(node.text);
  if (node instanceof DeepJson) return false;
  if (node instanceof Date) return true;
  const record = node as Record<string, unknown>;
  for (const key in record) {
    if (!storableText(key) || !holdsOnlyStorable(record[key])) return false;
  }
  return true;
}

/** JSON text of a value as jsonb can hold it (see storableJson). */
export function storableJsonText(value: unknown): string {
  return jsonText(storableJson(value).value);
}

/**
 * The row as its table can hold it: a value its column cannot (NUL or a lone surrogate in text,
 * a number beyond the column's range, a day before 4713 BC) becomes null, and a JSON value keeps
 * all it can (see storableJson). Returns the row itself when nothing had to change, and every
 * change made, so that each is reported and none is silent.
 */
export function storableRow(
  row: Row,
  types: ColumnTypes,
): { readonly row: Row; readonly changes: readonly Unstorable[] } {
  const checks = checksOf(types);
  let copy: Record<string, unknown> | null = null;
  let changes: Unstorable[] | null = null;
  for (const column in row) {
    const value = row[column];
    if (value === null || value === undefined) continue;
    const check = checks.get(column);
    if (check === undefined) continue;
    const { expected, fits } = check;
    if (fits === "json") {
      const json = storableJson(value);
      if (json.changed.length === 0) continue;
      (copy ??= { ...row })[column] = json.value;
      for (const part of json.changed) (changes ??= []).push({ column, expected, value: part });
    } else if (!fits(value)) {
      (copy ??= { ...row })[column] = null;
      (changes ??= []).push({ column, expected, value });
    }
  }
  return { row: copy ?? row, changes: changes ?? NO_CHANGES };
}

const NO_CHANGES: readonly Unstorable[] = [];
