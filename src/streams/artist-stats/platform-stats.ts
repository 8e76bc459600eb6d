import type { StatSource } from "../../api/enums.js";
import { field, toDay } from "../../api/read-values.js";
import { stat } from "../../api/operations/artist-stats.js";
import { endpointStream } from "../endpoint-stream.js";
import type { PartitionSet } from "../partition-set.js";
import { notRecords } from "../record-selectors.js";
import { addDays, daysFrom, isCalendarDate } from "../../time/calendar.js";
import { product } from "../dimensions.js";
import { type WindowPartition, windowPaging } from "../paging.js";
import type { PlanContext } from "../stream.js";
import { AFTER_TRACKED_ARTISTS } from "./tracked-artists.js";

/** The upstream refuses a /stat window longer than 365 days: longer ones go in several requests. */
const MAX_WINDOW_DAYS = 365;

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

/** Tracked artists × configured sources, each partition a series over its window of days. */
const SERIES: PartitionSet<SeriesPartition> = {
  plan: seriesPartitions,
  after: AFTER_TRACKED_ARTISTS,
  scope: ({ artistId, source }) => ({ artist_id: artistId, source }),
};

export const platformStats = endpointStream({
  name: "artist_stats_platform_stats",
  family: "artist_stats",
  partitions: SERIES,
  operation: stat,
  params: ({ artistId, source }) => ({ source, artist_id: artistId }),
  paging: windowPaging(MAX_WINDOW_DAYS),
  // A point is made from the series (a metric's array, a pair): it is kept as it came.
  records: (series) => ({
    records: series.points,
    rejected: notRecords(series.others, "a point"),
    warnings: series.found ? [] : [{ kind: "no_list", message: "no series found in the response" }],
  }),
  raw: (point) => point.raw,
  requests: ({ since, until }) =>
    since > until ? 0 : Math.ceil((daysFrom(since, until) + 1) / MAX_WINDOW_DAYS),
  checkpoint: ({ until }) => ({ until }),
  table: "artist_stats.platform_stats",
  key: ["artist_id", "source", "metric", "day"],
  mode: "upsert",
  columns: (point) => ({
    metric: point.metric,
    day: toDay(point.day),
    value: point.value,
  }),
});
