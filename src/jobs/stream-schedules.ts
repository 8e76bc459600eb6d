import type { EtlConfig } from "../config/etl-config-schema.js";
import { STREAM_FAMILIES } from "../config/families.js";
import { scheduleIntervalSeconds, type StreamSchedule } from "../config/schedule-interval.js";
import { STREAMS } from "../streams/registry.js";

/** Each declared stream whose family has a schedule, with that schedule's interval. */
export function streamSchedules(config: Pick<EtlConfig, "schedules">): StreamSchedule[] {
  const intervals = new Map(
    STREAM_FAMILIES.flatMap((family) => {
      const schedule = config.schedules[family];
      return schedule ? [[family, scheduleIntervalSeconds(schedule)] as const] : [];
    }),
  );
  return STREAMS.flatMap((stream) => {
    const intervalSeconds = intervals.get(stream.family);
    return intervalSeconds === undefined
      ? []
      : [{ stream: stream.name, family: stream.family, intervalSeconds }];
  });
}
