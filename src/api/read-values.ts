import { isCalendarDate, utcDayOf } from "../time/calendar.js";
import { JsonDecimal } from "../json/json-body.js";
import { asRecord } from "../json/json-record.js";
import { untyped } from "./untyped-values.js";

/**
 * The tolerant readers, one home for every field the spec does not pin down. They never throw: a
 * value that is not what was hoped for becomes null (and is noted as untyped for the run's
 * report), never an insert error that would fail a whole page, and the row keeps the raw JSON
 * beside what could be typed.
 */

/** A decimal number as Postgres's numeric reads it: sign, digits, fraction, exponent. */
const DECIMAL = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

/**
 * A number's exact text: a JSON number as it was sent (see JsonDecimal), a numeric string as it
 * is; null for anything else. Never through a double, so no digit is lost.
 */
function decimalText(value: unknown): string | null {
  if (typeof value === "number") return Number.isFinite(value) ? String(value) : null;
  if (value instanceof JsonDecimal) return value.text;
  if (typeof value !== "string") return null;
  const text = value.trim();
  return DECIMAL.test(text) ? text : null;
}

function parseNumber(value: unknown): number | null {
  const text = decimalText(value);
  const parsed = text === null ? NaN : Number(text);
  return Number.isFinite(parsed) ? parsed : null;
}

/** A non-empty string or a number's decimal text, else null; notes nothing. */
export function parseText(value: unknown): string | null {
  if (typeof value === "string") return value === "" ? null : value;
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  if (value instanceof JsonDecimal) return value.text;
  return null;
}

/**
 * A number as the exact decimal text it came as ("12.3400", 1234.5678, "1E3"), for a numeric
 * column; anything else is null.
 */
export function toDecimal(value: unknown): string | null {
  return decimalText(value) ?? untyped("number", value);
}

/**
 * A whole number, also from a string ("12", "12.0"); a fraction, or one beyond what a double
 * holds exactly, is null (noted: never rounded).
 */
export function toInteger(value: unknown): number | null {
  const parsed = parseNumber(value);
  return parsed !== null && Number.isSafeInteger(parsed) ? parsed : untyped("integer", value);
}

/** A non-empty string; numbers become their decimal text (ids arrive as either). */
export function toText(value: unknown): string | null {
  return parseText(value) ?? (typeof value === "string" ? null : untyped("text", value));
}

/**
 * A money amount as the exact decimal text it came as, every decimal kept ("12.5", "12.3400"): a
 * numeric column without a fixed scale stores it as sent. Null if it is not a number.
 */
export function toMoney(value: unknown): string | null {
  return decimalText(value) ?? untyped("money", value);
}

/**
 * A date or an instant, ISO 8601 or SQL ("2026-01-05 12:30:00.000"), with a zone (Z, +01:00,
 * +0100, +01, UTC, GMT, optionally after a space) or none.
 */
const ISO =
  /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?)\s?(Z|UTC|GMT|[+-]\d{2}(?::?\d{2})?)?)?$/i;

/**
 * The items of a value the upstream sends as one item or a list of them: a list as it came, null
 * as none, anything else as a list of that one. Notes nothing: the caller decides what an item
 * that is not a record becomes.
 */
export function oneOrMany(value: unknown): unknown[] {
  return Array.isArray(value) ? (value as unknown[]) : value === null ? [] : [value];
}

/** The field at `path` of a record ("playlist", "id"), or undefined. */
export function field(record: unknown, ...path: string[]): unknown {
  return fieldAtPath(record, path);
}

/** The field at a path already held as a list: no copy of it per read, as `field`'s rest makes. */
export function fieldAtPath(record: unknown, path: readonly string[]): unknown {
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

/** An instant given as epoch seconds or milliseconds (a number, or 9 to 13 digits of text). */
function epochInstant(value: unknown): Date | null {
  const text = parseText(value)?.trim();
  if (!text || !/^\d{9,13}(?:\.\d+)?$/.test(text)) return null;
  const numeric = Number(text);
  const date = new Date(numeric < 1e11 ? numeric * 1000 : numeric);
  return Number.isNaN(date.getTime()) ? null : date;
}

/**
 * The calendar day of a series point's time: an ISO or SQL date or instant, or epoch seconds or
 * milliseconds. Null when it is none of them. Wider than toDay because the spec does not show
 * how /stat points give their time, and pairs of `[time, value]` plausibly give it as a number.
 */
export function dayOfTime(time: unknown): string | null {
  const epoch = epochInstant(time);
  if (epoch) return utcDayOf(epoch);
  const text = toText(time);
  return text && /^\d{4}-\d{2}-\d{2}/.test(text) ? text.slice(0, 10) : null;
}

/**
 * An instant as text Postgres reads the same way whatever the session's time zone: ISO 8601 or
 * SQL form, or epoch seconds or milliseconds. The spec says the upstream's instants are UTC, so
 * one without a zone is taken as UTC.
 */
export function toInstant(value: unknown): string | null {
  const epoch = epochInstant(value);
  if (epoch) return epoch.toISOString();
  const match = ISO.exec(parseText(value)?.trim() ?? "");
  if (!match || !isCalendarDate(match[1] as string)) return untyped("instant", value);
  const [, day, time, zone] = match;
  const utc = zone === undefined || /^(Z|UTC|GMT)$/i.test(zone);
  const instant = `${day}T${(time ?? "00:00:00").replace(",", ".")}${utc ? "Z" : zone}`;
  return Number.isFinite(Date.parse(instant)) ? instant : untyped("instant", value);
}
