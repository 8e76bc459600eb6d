import { isCalendarDate, utcDayOf } from "../time/calendar.js";
import { untyped } from "./untyped-values.js";

/**
 * The tolerant readers, one home for every field the spec does not pin down. They never throw: a
 * value that is not what was hoped for becomes null (and is noted as untyped for the run's
 * report), never an insert error that would fail a whole page, and the row keeps the raw JSON
 * beside what could be typed.
 */

export type JsonRecord = Record<string, unknown>;

export function asRecord(value: unknown): JsonRecord | null {
  return value !== null && typeof value === "object" && !Array.isArray(value)
    ? (value as JsonRecord)
    : null;
}

function parseNumber(value: unknown): number | null {
  if (typeof value === "number") return Number.isFinite(value) ? value : null;
  if (typeof value === "string" && value.trim() !== "") {
    const parsed = Number(value.trim());
    return Number.isFinite(parsed) ? parsed : null;
  }
  return null;
}

/** A non-empty string or a number's decimal text, else null; notes nothing. */
export function parseText(value: unknown): string | null {
  if (typeof value === "string") return value === "" ? null : value;
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  return null;
}

/** A number, also from a numeric string ("12.50", " 3 "); anything else is null. */
export function toNumber(value: unknown): number | null {
  return parseNumber(value) ?? untyped("number", value);
}

/** A whole number, also from a string; a fraction or anything else is null. */
export function toInteger(value: unknown): number | null {
  const parsed = parseNumber(value);
  return parsed !== null && Number.isInteger(parsed) ? parsed : untyped("integer", value);
}

/** A non-empty string; numbers become their decimal text (ids arrive as either). */
export function toText(value: unknown): string | null {
  return parseText(value) ?? (typeof value === "string" ? null : untyped("text", value));
}

/** A money amount as exact decimal text with two places ("12.5" -> "12.50"); null if not money. */
export function toMoney(value: unknown): string | null {
  const text =
    typeof value === "number"
      ? Number.isFinite(value)
        ? value.toFixed(2)
        : ""
      : parseText(value)?.trim();
  const match = text ? /^(-?)(\d+)(?:\.(\d{1,2}))?$/.exec(text) : null;
  if (!match) return untyped("money", value);
  const [, sign, units, cents = ""] = match;
  return `${sign}${BigInt(units as string).toString()}.${cents.padEnd(2, "0")}`;
}

const ISO =
  /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)(Z|[+-]\d{2}(?::?\d{2})?)?)?$/i;

/** An array as it came, else null; notes nothing (a list kept whole in a jsonb column). */
export function asList(value: unknown): unknown[] | null {
  return Array.isArray(value) ? (value as unknown[]) : null;
}

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
 * The calendar day of a series point's time: an ISO date or instant, or epoch seconds or
 * milliseconds (as a number or 9 to 13 digits of text). Null when it is none of them. Wider than
 * toDay because the spec does not show how /stat points give their time, and pairs of
 * `[time, value]` plausibly give it as a number.
 */
export function dayOfTime(time: unknown): string | null {
  const numeric =
    typeof time === "number" ? time : /^\d{9,13}$/.test(String(time)) ? Number(time) : NaN;
  if (Number.isFinite(numeric)) {
    const date = new Date(numeric < 1e11 ? numeric * 1000 : numeric);
    return Number.isNaN(date.getTime()) ? null : utcDayOf(date);
  }
  const text = toText(time);
  return text && /^\d{4}-\d{2}-\d{2}/.test(text) ? text.slice(0, 10) : null;
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
