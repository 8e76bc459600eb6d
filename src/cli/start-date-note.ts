import type { EtlConfig } from "../config/etl-config-schema.js";
import type { DayRange } from "../runner/plan/plan-partitions.js";
import { addDays } from "../time/calendar.js";

/**
 * A range that starts before `start_date`, said in a line (null otherwise): those days are
 * fetched this once, but nothing else goes back that far (the schedules, `status`'s missing days,
 * `retry-failed`), so a failure there would never be seen again.
 */
export function startDateNote(
  config: Pick<EtlConfig, "start_date">,
  range: DayRange,
): string | null {
  if (range.from === undefined || range.from >= config.start_date) return null;
  const last =
    range.to !== undefined && range.to < config.start_date
      ? range.to
      : addDays(config.start_date, -1);
  return `warning: --from ${range.from} is before start_date ${config.start_date}: ${range.from}..${last} is fetched this once, but the schedules, \`etl status\` and \`etl retry-failed\` go back to start_date only; set start_date earlier to keep those days`;
}
