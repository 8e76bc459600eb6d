import type { EtlConfig } from "../config/etl-config-schema.js";
import { scheduleIntervalSeconds, staleAfterSeconds } from "../config/schedule-interval.js";
import type { StreamSettings } from "../warehouse/recorded-settings.js";
import { artistDayPartitions } from "../streams/artist-stats/tracked-artists.js";
import type { Stream } from "../streams/stream.js";

/** What `config` makes of each of the streams. */
export function streamSettings(config: EtlConfig, streams: readonly Stream[]): StreamSettings[] {
  const schedules = new Map<string, StreamSettings["schedule"]>();
  return streams.map((stream) => {
    if (!schedules.has(stream.family)) {
      const schedule = config.schedules[stream.family];
      const intervalSeconds = schedule ? scheduleIntervalSeconds(schedule) : null;
      schedules.set(
        stream.family,
        schedule && intervalSeconds !== null
          ? { ...schedule, intervalSeconds, staleAfterSeconds: staleAfterSeconds(intervalSeconds) }
          : null,
      );
    }
    return {
      stream: stream.name,
      family: stream.family,
      daily: stream.daily === true,
      firstDay: config.start_date,
      // The radio streams keep the last radio_history_days only (tracked-artists.ts).
      historyDays:
        (stream.partitions as unknown) === artistDayPartitions
          ? config.artist_stats.radio_history_days
          : null,
      schedule: schedules.get(stream.family) ?? null,
    };
  });
}
