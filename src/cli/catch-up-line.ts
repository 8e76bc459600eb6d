import type { EtlConfig } from "../config/etl-config-schema.js";
import { sustainedRequestsPerSecond } from "../http/request-budget.js";
import type { ScheduleCatchUp } from "../jobs/schedule-catch-up.js";
import { duration } from "./duration-text.js";

/**
 * The worker's start-up line on what its schedules leave to a backfill: an operator with
 * `start_date` two years back learns at once that those days are not coming by themselves, what
 * fetches them and about how long that takes.
 */
export function catchUpLine(catchUp: ScheduleCatchUp, etl: EtlConfig): string {
  const rate = etl.requests_per_second;
  const time =
    typeof rate === "number"
      ? `, at least ${duration(catchUp.requests / sustainedRequestsPerSecond(rate))} at ${rate} req/s`
      : "";
  const days = `--from ${catchUp.from} --to ${catchUp.to}`;
  return `${catchUp.partitions} partitions of ${catchUp.streams.length} daily streams never synced on days ${catchUp.from}..${catchUp.to}, before the schedules' lookback: the schedules leave them to a backfill; \`etl backfill ${days}\` fetches them (${catchUp.requests} requests or more${time}), \`etl plan ${days}\` counts them per stream`;
}
