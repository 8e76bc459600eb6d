import { JsonDecimal } from "../json/json-body.js";
import { isCalendarDate } from "../time/calendar.js";

/**
 * The Postgres type a discovered column takes, from the values that arrived in it. Widening goes
 * one way: bigint to numeric, two other kinds to text, and anything to jsonb once an object or a
 * list arrives; never back (see widen).
 */
export type ColumnKind =
  "boolean" | "bigint" | "numeric" | "date" | "timestamp" | "timestamptz" | "text" | "jsonb";

const INTEGER_TEXT = /^-?(?:0|[1-9]\d*)$/;
/** A decimal with a fraction, as money is sent ("12.50"): inferred numeric from a string. */
const FRACTION_TEXT = /^-?(?:0|[1-9]\d*)\.\d+$/;
const DECIMAL_TEXT = /^-?(?:0|[1-9]\d*)(?:\.\d+)?$/;
const DAY = /^(\d{4}-\d{2}-\d{2})$/;
const DATE_TIME =
  /^(\d{4}-\d{2}-\d{2})[T ]([01]\d|2[0-3]):[0-5]\d(?::[0-5]\d(?:\.\d{1,6})?)?(Z|[+-](?:[01]\d|2[0-3])(?::?[0-5]\d)?)?$/i;
const INT8_MIN = -(2n ** 63n);
const INT8_MAX = 2n ** 63n - 1n;

function withinInt8(text: string): boolean {
  const n = BigInt(text);
  return n >= INT8_MIN && n <= INT8_MAX;
}

/** A number's exact text: as sent for a JSON number a double would not give back. */
function numberText(value: unknown): string | null {
  if (typeof value === "number") return Number.isFinite(value) ? String(value) : null;
  if (value instanceof JsonDecimal) return value.text;
  return null;
}

function isWholeText(text: string): boolean {
  return INTEGER_TEXT.test(text) && withinInt8(text);
}

/** What a string says it is: a day, an instant with or without a zone, money, or text. */
function kindOfString(text: string): ColumnKind {
  const day = DAY.exec(text);
  if (day) return isCalendarDate(day[1] as string) ? "date" : "text";
  const time = DATE_TIME.exec(text);
  if (time) {
    if (!isCalendarDate(time[1] as string)) return "text";
    return time[3] === undefined ? "timestamp" : "timestamptz";
  }
  // Whole numbers in strings are kept as text: codes and ids ("0012", a UPC) lose nothing there.
  return FRACTION_TEXT.test(text) ? "numeric" : "text";
}

/** The kind a value asks of a new column; null for null (a column needs a value to be typed). */
export function kindOfValue(value: unknown): ColumnKind | null {
  if (value === null || value === undefined) return null;
  if (typeof value === "boolean") return "boolean";
  if (typeof value === "string") return kindOfString(value);
  const text = numberText(value);
  if (text !== null) return isWholeText(text) ? "bigint" : "numeric";
  if (typeof value === "bigint") return withinInt8(String(value)) ? "bigint" : "numeric";
  return "jsonb";
}

/** Whether a column of `kind` holds `value` exactly, as storedValue gives it. */
export function holds(kind: ColumnKind, value: unknown): boolean {
  if (value === null || value === undefined || kind === "jsonb") return true;
  // The common cases first, without classifying the value: every record's fields are asked.
  if (kind === "text") return typeof value !== "object" || value instanceof JsonDecimal;
  if (typeof value === "number") {
    if (kind === "numeric") return Number.isFinite(value);
    if (Number.isSafeInteger(value)) return kind === "bigint";
  }
  const valueKind = kindOfValue(value);
  if (valueKind === kind) return true;
  if (valueKind === "jsonb") return false;
  switch (kind) {
    case "numeric":
      return valueKind === "bigint" || (typeof value === "string" && DECIMAL_TEXT.test(value));
    case "bigint":
      return typeof value === "string" && isWholeText(value);
    default:
      return false;
  }
}

/** The narrowest kind that holds what `kind` held and `value`: never narrower than `kind`. */
export function widen(kind: ColumnKind, value: unknown): ColumnKind {
  if (holds(kind, value)) return kind;
  const valueKind = kindOfValue(value) ?? kind;
  if (valueKind === "jsonb") return "jsonb";
  if (kind === "bigint" && valueKind === "numeric") return "numeric";
  return "text";
}

/** Whether a column of kind `wide` holds every value one of kind `narrow` holds. */
export function covers(wide: ColumnKind, narrow: ColumnKind): boolean {
  return joinKinds(wide, narrow) === wide;
}

/** The narrowest kind that holds what either kind holds. */
export function joinKinds(a: ColumnKind, b: ColumnKind): ColumnKind {
  if (a === b) return a;
  if (a === "jsonb" || b === "jsonb") return "jsonb";
  const pair = new Set([a, b]);
  return pair.has("bigint") && pair.has("numeric") ? "numeric" : "text";
}

/**
 * A value as the parameter its column of `kind` takes: a number's exact text, a scalar's text; for
 * jsonb, a container as it is (sent as JSON) and a scalar as its JSON text.
 */
export function storedValue(kind: ColumnKind, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (kind === "boolean") return value;
  if (kind === "jsonb") {
    if (typeof value === "object" && !(value instanceof JsonDecimal)) return value;
    return typeof value === "string" ? JSON.stringify(value) : scalarText(value);
  }
  return typeof value === "string" ? value : scalarText(value);
}

/** A number's exact text, a boolean's; JSON text for anything else (a column widens first). */
function scalarText(value: unknown): string {
  if (typeof value === "boolean" || typeof value === "bigint") return String(value);
  return numberText(value) ?? JSON.stringify(value);
}
