import type { StatSource } from "../../api/enums.js";
import { toDecimal, field, toBoolean, toDay } from "../../api/read-values.js";
import { stat, type StatPoint } from "../../api/operations/artist-stats.js";
import { notRecords, single } from "../list-read.js";
import { addDays, daysFrom, isCalendarDate } from "../../time/calendar.js";
import { product } from "../dimensions.js";
import { type WindowPartition, windowPaging } from "../paging.js";
import { defineStream, type PlanContext } from "../stream.js";
import { AFTER_TRACKED_ARTISTS } from "./tracked-artists.js";

/** The upstream refuses a /stat window longer than 365 days: longer ones go in several requests. */
const MAX_WINDOW_DAYS = 365;

const paging = windowPaging(MAX_WINDOW_DAYS);

/** One artist's series on one source, over [since, until] (since > until: nothing to fetch). */
interface SeriesPartition extends WindowPartition {
  readonly artistId: number;
  readonly source: StatSource;
}

/** The `until` a partition committed last time, when it has a valid one. */
function checkpointUntil(checkpoint: unknown): string | null {
  const until = field(checkpoint, "until");
  return typeof until === "string" && isCalendarDate(until) ? until : null;
}

/**
 * First sync: from start_date. Later: from the last `until` minus the family's lookback days (late and restated
 * values), never before start_date. Always up to yesterday, the last complete day.
 */
function seriesWindow(
  { config, today }: Pick<PlanContext, "config" | "today">,
  checkpoint: unknown,
): { since: string; until: string } {
  const previous = checkpointUntil(checkpoint);
  const resume = previous
    ? addDays(previous, -config.lookback.artist_stats.days)
    : config.start_date;
  return {
    since: resume > config.start_date ? resume : config.start_date,
    until: addDays(today, -1),
  };
}

/** Tracked artists × configured sources ("7|social_1"), each over its window of days. */
async function seriesPartitions(context: PlanContext): Promise<SeriesPartition[]> {
  const series = [
    ...product({
      artistId: await context.trackedArtistIds(),
      source: context.config.artist_stats.stat_sources,
    }),
  ];
  const checkpoints = await context.checkpoints(series.map(({ key }) => key));
  return series.map((s) => ({ ...s, ...seriesWindow(context, checkpoints.get(s.key)) }));
}

export const platformStats = defineStream<SeriesPartition, StatPoint, typeof paging>({
  name: "artist_stats_platform_stats",
  family: "artist_stats",
  paging,
  after: AFTER_TRACKED_ARTISTS,
  partitions: seriesPartitions,
  requests: ({ since, until }) =>
    since > until ? 0 : Math.ceil((daysFrom(since, until) + 1) / MAX_WINDOW_DAYS),
  fetch: async (_context, { artistId, source }, page) => [
    await page.exchange(stat, { source, artist_id: artistId }),
  ],
  read: (exchanges) => {
    const series = stat.parse(single(exchanges).body);
    return {
      records: series.points,
      rejected: notRecords(series.others, "a point"),
      warnings: series.found
        ? []
        : [{ kind: "no_list", message: "no series found in the response" }],
    };
  },
  checkpoint: ({ until }) => ({ until }),
  outputs: [
    {
      target: {
        table: "artist_stats.platform_stats",
        key: ["artist_id", "source", "metric", "day"],
      },
      mode: "upsert",
      rows: (point, { artistId, source }) => [
        {
          artist_id: artistId,
          source,
          metric: point.metric,
          day: toDay(point.day),
          value: point.value,
          daily_diff: toDecimal(field(point.raw, "daily_diff")),
          interpolated: toBoolean(field(point.raw, "interpolated")),
          raw: point.raw,
        },
      ],
    },
  ],
});
