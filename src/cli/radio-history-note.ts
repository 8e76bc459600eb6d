import type { EtlConfig } from "../config/etl-config-schema.js";
import { artistDayPartitions, radioHistoryStart } from "../streams/artist-stats/tracked-artists.js";
import type { DayRange } from "../runner/plan/plan-partitions.js";
import type { Stream } from "../streams/stream.js";
import { addDays, daysFrom } from "../time/calendar.js";

/**
 * The days of an asked-for range that `radio_history_days` keeps out of the radio streams, said
 * in a line (null when it keeps them all): a backfill asked for a year that fetches a month of
 * radio must say so, not leave the user to find the rest missing. Only a range given with --from
 * is told; an incremental run's days are the lookback's.
 */
export function radioHistoryNote(
  config: EtlConfig,
  streams: readonly Stream[],
  range: DayRange,
  today: string,
): string | null {
  const start = radioHistoryStart(config, today);
  // The radio streams are those planned one partition per artist and day of the range.
  const radio = streams.filter((s) => (s.partitions as unknown) === artistDayPartitions);
  if (start === null || range.from === undefined || range.from >= start || radio.length === 0) {
    return null;
  }
  const asked = range.to ?? addDays(today, -1);
  const lastLeftOut = asked < start ? asked : addDays(start, -1);
  const days = daysFrom(range.from, lastLeftOut) + 1;
  return (
    `${radio.map((s) => s.name).join(", ")}: ${range.from}..${lastLeftOut} left out ` +
    `(${days} days): artist_stats.radio_history_days keeps ${config.artist_stats.radio_history_days} days, from ${start}`
  );
}
