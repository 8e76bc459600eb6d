import { toInteger, toText, field } from "../../api/read-values.js";
import { type JsonRecord } from "../../json/json-record.js";
import { charts } from "../../api/operations/artist-stats.js";
import { listRead, single } from "../list-read.js";
import { compound, product } from "../dimensions.js";
import { offsetPaging } from "../paging.js";
import { defineStream } from "../stream.js";
import { type Partition } from "../partition.js";

const paging = offsetPaging(charts.name, 200, "limit");

/** One configured chart on one day. */
interface ChartDay extends Partition {
  readonly day: string;
  readonly countryCode: string;
  readonly genre: string;
}

function chartScope({ day, countryCode, genre }: ChartDay) {
  return { chart_date: day, country_code: countryCode, genre };
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

export const chartEntries = defineStream<ChartDay, JsonRecord, typeof paging>({
  name: "artist_stats_chart_entries",
  family: "artist_stats",
  paging,
  daily: true,
  partitions: ({ config, days }) => chartDays(days, config.charts),
  fetch: async (_context, { day, countryCode, genre }, page) => [
    await page.exchange(charts, { country_code: countryCode, genre, date: day }),
  ],
  read: (exchanges) => listRead(charts.parse(single(exchanges).body)),
  outputs: [
    {
      target: {
        table: "artist_stats.chart_entries",
        key: ["chart_date", "country_code", "genre", "rank"],
      },
      // A day's chart replaces what was stored for it: an entry no longer listed goes.
      mode: "replace",
      scope: chartScope,
      rows: (entry, partition) => [
        {
          ...chartScope(partition),
          rank: toInteger(entry.rank),
          pre_rank: toInteger(entry.pre_rank),
          peak_rank: toInteger(entry.peak_rank),
          time_on_chart: toInteger(entry.time_on_chart),
          artist_id: toInteger(field(entry, "artist", "cm_artist")),
          artist_name: toText(field(entry, "artist", "name")),
          track_name: toText(field(entry, "track", "name")),
          isrc: toText(field(entry, "track", "isrc")),
          raw: entry,
        },
      ],
    },
  ],
});
