import { z } from "zod";
import { listEndpoint } from "../../api/endpoint.js";
import { calendarDate, nonEmptyText } from "../../api/params.js";
import { toInteger } from "../../api/read-values.js";
import { compound, product } from "../dimensions.js";
import { endpointStream } from "../endpoint-stream.js";
import { offsetPaging } from "../paging.js";
import type { Partition } from "../partition.js";
import type { PartitionSet } from "../partition-set.js";
import { OFFSET_LIMIT } from "./statistics-params.js";

export const chartsOperation = listEndpoint(
  "/artist-stats/charts",
  z.object({
    country_code: z
      .string()
      .regex(/^([A-Z]{2}|GLOBAL)$/, "must be a two-letter upper-case country code or GLOBAL")
      .optional(),
    genre: nonEmptyText.optional(),
    date: calendarDate.optional(),
    ...OFFSET_LIMIT,
  }),
);

/** One configured chart on one day. */
interface ChartDay extends Partition {
  readonly day: string;
  readonly countryCode: string;
  readonly genre: string;
}

/** Days × configured charts: "2026-01-05|US|All Genres". */
export function chartDays(
  days: readonly string[],
  configured: readonly { readonly country_code: string; readonly genre: string }[],
): Iterable<ChartDay> {
  return product({
    day: days,
    chart: compound(
      configured.map(({ country_code, genre }) => ({ countryCode: country_code, genre })),
      ({ countryCode, genre }) => `${countryCode}|${genre}`,
    ),
  });
}

/** The configured charts on each day of the range. */
const CHART_DAYS: PartitionSet<ChartDay> = {
  plan: ({ config, days }) => chartDays(days, config.charts),
  scope: ({ day, countryCode, genre }) => ({ chart_date: day, country_code: countryCode, genre }),
  daily: true,
};

export const chartEntries = endpointStream({
  name: "artist_stats_chart_entries",
  family: "artist_stats",
  partitions: CHART_DAYS,
  operation: chartsOperation,
  params: ({ day, countryCode, genre }) => ({ country_code: countryCode, genre, date: day }),
  paging: offsetPaging(chartsOperation.name, 200, "limit"),
  records: "list",
  table: "artist_stats.chart_entries",
  key: ["chart_date", "country_code", "genre", "rank"],
  // A day's chart replaces what was stored for it: an entry no longer listed goes.
  mode: "replace",
  // Its rank is its key; the spec shows no other field: each is a discovered column.
  columns: (entry) => ({ rank: toInteger(entry.rank) }),
});
