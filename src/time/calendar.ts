import { UTCDate } from "@date-fns/utc";
// One module per function: the package's index loads its 300 modules, 90 ms of every command's
// start-up.
import { addDays as addToDate } from "date-fns/addDays";
import { differenceInCalendarDays } from "date-fns/differenceInCalendarDays";
import { eachDayOfInterval } from "date-fns/eachDayOfInterval";
import { formatISO } from "date-fns/formatISO";

// Days travel as YYYY-MM-DD text (keys, SQL, JSON); date-fns does the arithmetic on UTCDate, whose
// getters are UTC, so no result depends on the machine's zone. Validation reads the digits itself,
// because every stored day crosses it: date-fns's isMatch accepts "2026-2-3" and costs 5 µs a
// value, and a pattern checked by a round trip through Date.UTC makes a Date of every value (and
// Date.UTC takes years 0 to 99 for 1900 to 1999).
const DATE_TIME = /^(\d{4}-\d{2}-\d{2})T([01]\d|2[0-3]):([0-5]\d):([0-5]\d)$/;
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const HYPHEN = 45;

/** The number `value` writes in its characters `from` to `to` (decimal digits only), else -1. */
function digitsAt(value: string, from: number, to: number): number {
  let n = 0;
  for (let at = from; at < to; at += 1) {
    const digit = value.charCodeAt(at) - 48;
    if (digit < 0 || digit > 9) return -1;
    n = n * 10 + digit;
  }
  return n;
}

/**
 * True for a real calendar day written YYYY-MM-DD (rejects 2026-02-30), years 0001 to 9999: ISO
 * 8601's year 0000 is one Postgres refuses.
 */
export function isCalendarDate(value: string): boolean {
  if (value.length !== 10 || value.charCodeAt(4) !== HYPHEN || value.charCodeAt(7) !== HYPHEN) {
    return false;
  }
  const year = digitsAt(value, 0, 4);
  const month = digitsAt(value, 5, 7);
  const day = digitsAt(value, 8, 10);
  if (year < 1 || month < 1 || month > 12 || day < 1) return false;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return day <= (month === 2 && leap ? 29 : (DAYS_IN_MONTH[month - 1] ?? 0));
}

/** True for a real local date-time written YYYY-MM-DDThh:mm:ss (no zone, no fraction). */
export function isLocalDateTime(value: string): boolean {
  const match = DATE_TIME.exec(value);
  return match !== null && isCalendarDate(match[1] as string);
}

function utcDay(day: string): UTCDate {
  return new UTCDate(`${day}T00:00:00Z`);
}

function dayOf(date: Date): string {
  return formatISO(date, { representation: "date" });
}

/** The day (UTC, YYYY-MM-DD) of an instant. */
export function utcDayOf(instant: Date): string {
  return dayOf(new UTCDate(instant.getTime()));
}

/** An instant to the minute, in UTC, for people: "YYYY-MM-DD hh:mm". */
export function utcMinuteOf(instant: Date): string {
  return instant.toISOString().slice(0, 16).replace("T", " ");
}

/** Today's date in UTC as YYYY-MM-DD. */
export function utcToday(): string {
  return utcDayOf(new Date());
}

/** The day `n` days after `day` (before, when negative), both YYYY-MM-DD in UTC. */
export function addDays(day: string, n: number): string {
  return dayOf(addToDate(utcDay(day), n));
}

/** Whole days from `from` to `to` (negative when `to` is earlier). */
export function daysFrom(from: string, to: string): number {
  return differenceInCalendarDays(utcDay(to), utcDay(from));
}

/** Every day from `from` to `to`, inclusive; empty when `to` is before `from`. */
export function daysBetween(from: string, to: string): string[] {
  if (to < from) return [];
  return eachDayOfInterval({ start: utcDay(from), end: utcDay(to) }).map(dayOf);
}
