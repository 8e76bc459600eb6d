import { UTCDate } from "@date-fns/utc";
// One module per function: the package's index loads its 300 modules, 90 ms of every command's
// start-up.
import { addDays as addToDate } from "date-fns/addDays";
import { differenceInCalendarDays } from "date-fns/differenceInCalendarDays";
import { eachDayOfInterval } from "date-fns/eachDayOfInterval";
import { formatISO } from "date-fns/formatISO";

// Days travel as YYYY-MM-DD text (keys, SQL, JSON); date-fns does the arithmetic on UTCDate, whose
// getters are UTC, so no result depends on the machine's zone. Validation stays a pattern and a
// round trip through Date.UTC: date-fns's isMatch accepts "2026-2-3" and costs 5 µs a value,
// six times this, on a path every stored day crosses.
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4}-\d{2}-\d{2})T([01]\d|2[0-3]):([0-5]\d):([0-5]\d)$/;

/** True for a real calendar day written YYYY-MM-DD (rejects 2026-02-30). */
export function isCalendarDate(value: string): boolean {
  const match = DATE.exec(value);
  if (!match) return false;
  const [, y, m, d] = match.map(Number) as [number, number, number, number];
  const date = new Date(Date.UTC(y, m - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === d;
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
