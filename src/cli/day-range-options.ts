import { UsageError } from "../errors.js";
import type { DayRange } from "../runner/plan/plan-partitions.js";
import { isCalendarDate, utcToday } from "../time/calendar.js";

export interface DayRangeOptions {
  readonly from?: string;
  readonly to?: string;
}

/** --from / --to checked before anything runs: calendar days, in order, not in the future. */
export function parseDayRange(options: DayRangeOptions, today = utcToday()): DayRange {
  for (const [flag, value] of [
    ["--from", options.from],
    ["--to", options.to],
  ] as const) {
    if (value !== undefined && !isCalendarDate(value)) {
      throw new UsageError(
        /^\d{4}-\d{2}-\d{2}$/.test(value)
          ? `${flag} ${value} is not a day of the calendar`
          : `${flag} must be a calendar date written YYYY-MM-DD (got "${value}")`,
      );
    }
    if (value !== undefined && value > today) {
      throw new UsageError(`${flag} ${value} is in the future (today is ${today} UTC)`);
    }
  }
  if (options.from && options.to && options.from > options.to) {
    throw new UsageError(`--from ${options.from} is after --to ${options.to}`);
  }
  return { from: options.from, to: options.to };
}

/** `--only a,b` as a list. */
export function parseList(value: string | undefined): string[] | undefined {
  return value
    ?.split(",")
    .map((name) => name.trim())
    .filter(Boolean);
}
