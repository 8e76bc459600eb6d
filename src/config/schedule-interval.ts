import { CronExpressionParser } from "cron-parser";

/** The longest cycle of a pattern's day-of-week field: its gaps repeat within it. */
const HORIZON_MS = 7 * 86_400_000;
/** A week of a pattern firing every minute; one firing every few seconds has gaps of seconds. */
const MAX_FIRINGS = 7 * 24 * 60 + 1;

/**
 * How many schedule intervals a stream may go without a success before it is stale: a stream
 * succeeds in every run, so its last success is at most one interval old, plus the time its next
 * run takes to a first success; two intervals is a whole run gone by without one, whatever the
 * schedule. The one definition: the workers export the threshold (etl_stream_stale_after_seconds)
 * for the EtlStreamStale alert, and write it to etl.stream_settings for `etl status` and
 * analytics.stream_freshness.
 */
export const STALE_AFTER_INTERVALS = 2;

/** The stale threshold of a stream whose family runs every `intervalSeconds` at most. */
export function staleAfterSeconds(intervalSeconds: number): number {
  return STALE_AFTER_INTERVALS * intervalSeconds;
}

/** How far apart the scheduled runs of a stream's family may be. */
export interface StreamSchedule {
  readonly stream: string;
  readonly family: string;
  readonly intervalSeconds: number;
}

/**
 * The longest gap, in seconds, between two consecutive firings of a cron pattern in its zone
 * over the week after `from`, found with cron-parser as BullMQ's job schedulers fire it. The
 * longest, not the first: a weekday-only pattern waits over the weekend, and a daily run in a zone
 * with daylight saving is 25 hours from the one before once a year.
 */
export function scheduleIntervalSeconds(
  schedule: { readonly pattern: string; readonly tz: string },
  from: Date = new Date(),
): number {
  const firings = CronExpressionParser.parse(schedule.pattern, {
    tz: schedule.tz,
    currentDate: from,
  });
  let previous = firings.next().getTime();
  const until = previous + HORIZON_MS;
  let longest = 0;
  for (let count = 0; count < MAX_FIRINGS && previous <= until; count += 1) {
    const next = firings.next().getTime();
    longest = Math.max(longest, next - previous);
    previous = next;
  }
  return longest / 1000;
}
