import { asRecord, parseText, toText } from "../api/extract.js";
import { untyped } from "../api/untyped-values.js";
import { isCalendarDate } from "../time/calendar.js";

/**
 * Tolerant readers for typed columns, beside those of src/api/extract.ts: a value that is not
 * what was hoped for becomes null (the row keeps its raw JSON), never an insert error that would
 * fail a whole page.
 */

const ISO =
  /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)(Z|[+-]\d{2}(?::?\d{2})?)?)?$/i;

/** The field at `path` of a record ("playlist", "id"), or undefined. */
export function field(record: unknown, ...path: string[]): unknown {
  let value: unknown = record;
  for (const key of path) value = asRecord(value)?.[key];
  return value;
}

/**
 * The text of a key value, or of each element when the upstream sends a list where one value was
 * expected (the load then stores one row per element: a record listing several links).
 */
export function toKeyTexts(value: unknown): string | string[] | null {
  if (!Array.isArray(value)) return toText(value);
  return value.flatMap((element) => toText(element) ?? []);
}

/** The calendar day (YYYY-MM-DD) of an ISO date or instant; null for anything else. */
export function toDay(value: unknown): string | null {
  const match = ISO.exec(parseText(value)?.trim() ?? "");
  return match && isCalendarDate(match[1] as string) ? (match[1] as string) : untyped("day", value);
}

/**
 * An ISO 8601 instant as text Postgres reads the same way whatever the session's time zone: the
 * spec says the upstream's instants are UTC, so one without a zone is taken as UTC.
 */
export function toInstant(value: unknown): string | null {
  const match = ISO.exec(parseText(value)?.trim() ?? "");
  if (!match || !isCalendarDate(match[1] as string)) return untyped("instant", value);
  const [, day, time, zone] = match;
  const instant = `${day}T${time ?? "00:00:00"}${zone ?? "Z"}`;
  return Number.isFinite(Date.parse(instant)) ? instant : untyped("instant", value);
}

/** The first day of a YYYY-MM month, else null. */
export function monthStart(value: unknown): string | null {
  const text = parseText(value);
  return text !== null && /^\d{4}-(0[1-9]|1[0-2])$/.test(text)
    ? `${text}-01`
    : untyped("month", value);
}

/** A boolean, also from "true"/"false" text; anything else is null. */
export function toBoolean(value: unknown): boolean | null {
  if (typeof value === "boolean") return value;
  return value === "true" ? true : value === "false" ? false : untyped("boolean", value);
}

/**
 * A Postgres array literal ({"a","b"}) for an array column: the row writer sends JS arrays as
 * JSON (for jsonb), which an array column refuses.
 */
export function toArrayLiteral(values: readonly (string | number)[]): string {
  const quoted = values.map((value) => `"${String(value).replace(/["\\]/g, "\\$&")}"`);
  return `{${quoted.join(",")}}`;
}
