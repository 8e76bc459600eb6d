// Days travel as integers (days since 1970-01-01, UTC) so ranges are plain loops and
// arithmetic; they are formatted back to text only at the edges.

const DAY_MS = 86_400_000;
const DATE_PATTERN = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME_PATTERN = /^(\d{4}-\d{2}-\d{2})T([01]\d|2[0-3]):([0-5]\d):([0-5]\d)$/;

/** Day number of a strict YYYY-MM-DD calendar date, or null when the text is not one. */
export function parseDay(text: string): number | null {
  const match = DATE_PATTERN.exec(text);
  if (!match) return null;
  const [, year, month, day] = match.map(Number);
  if (year === undefined || month === undefined || day === undefined) return null;
  const ms = Date.UTC(year, month - 1, day);
  // Date.UTC rolls 2026-02-30 over into March; a round trip catches it.
  return formatDay(ms / DAY_MS) === text ? ms / DAY_MS : null;
}

/** Day number of a strict YYYY-MM-DDThh:mm:ss date-time (the time is dropped), or null. */
export function parseDateTimeDay(text: string): number | null {
  const match = DATE_TIME_PATTERN.exec(text);
  return match?.[1] === undefined ? null : parseDay(match[1]);
}

export function formatDay(day: number): string {
  return new Date(day * DAY_MS).toISOString().slice(0, 10);
}

/** Midnight UTC of the day as an ISO instant with milliseconds. */
export function dayInstant(day: number): string {
  return new Date(day * DAY_MS).toISOString();
}

/** An instant `seconds` after midnight UTC of the day, ISO without milliseconds. */
export function instantOn(day: number, seconds: number): string {
  return new Date(day * DAY_MS + seconds * 1000).toISOString().replace(".000Z", "Z");
}

/** "YYYY-MM" of the day. */
export function monthOf(day: number): string {
  return formatDay(day).slice(0, 7);
}

/** First day of the month `offset` months after the month of `day` (negative goes back). */
export function monthStart(day: number, offset = 0): number {
  const date = new Date(day * DAY_MS);
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + offset, 1) / DAY_MS;
}

/** 0 = Sunday … 6 = Saturday. */
export function weekday(day: number): number {
  return new Date(day * DAY_MS).getUTCDay();
}

export function currentUtcDate(): string {
  return new Date().toISOString().slice(0, 10);
}

/** A parsed day, or an error naming the input; for option values given by code, not requests. */
export function requireDay(text: string, what: string): number {
  const day = parseDay(text);
  if (day === null)
    throw new Error(`${what} must be a YYYY-MM-DD date, got ${JSON.stringify(text)}`);
  return day;
}
