import type { StatSource } from "../../api/enums.js";
import { toNumber, field, toBoolean, toDay } from "../../api/read-values.js";
import { stat, type StatPoint } from "../../api/operations/artist-stats.js";
import { notRecords, single } from "../list-read.js";
import { addDays, daysFrom, isCalendarDate } from "../../time/calendar.js";
import { defineStream, type Partition, type PlanContext } from "../stream.js";
import { trackedArtistIds } from "../../warehouse/tracked-artists.js";
import { AFTER_TRACKED_ARTISTS } from "./tracked-artists.js";

/** The upstream refuses a /stat window longer than 365 days: longer ones go in several requests. */
const MAX_WINDOW_DAYS = 365;

/** One artist's series on one source, over [since, until] (since > until: nothing to fetch). */
interface SeriesPartition extends Partition {
  readonly artistId: number;
  readonly source: StatSource;
  readonly since: string;
  readonly until: string;
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

async function seriesPartitions(context: PlanContext): Promise<SeriesPartition[]> {
  const series = (await trackedArtistIds(context.db)).flatMap((artistId) =>
    context.config.artist_stats.stat_sources.map((source) => ({
      key: `${artistId}|${source}`,
      artistId,
      source,
    })),
  );
  const checkpoints = await context.checkpoints(series.map(({ key }) => key));
  return series.map((s) => ({ ...s, ...seriesWindow(context, checkpoints.get(s.key)) }));
}

/** The window a cursor asks for: from its start (the partition's since first), capped. */
function windowOf({ since, until }: SeriesPartition, cursor: string | null) {
  const start = cursor ?? since;
  const windowEnd = addDays(start, MAX_WINDOW_DAYS - 1);
  return { start, end: windowEnd < until ? windowEnd : until };
}

/** Each page is one window of at most MAX_WINDOW_DAYS days; the cursor is the next window's start. */
export const platformStats = defineStream<SeriesPartition, StatPoint, string>({
  name: "artist_stats_platform_stats",
  family: "artist_stats",
  paging: { style: "windows" },
  after: AFTER_TRACKED_ARTISTS,
  partitions: seriesPartitions,
  requests: ({ since, until }) =>
    since > until ? 0 : Math.ceil((daysFrom(since, until) + 1) / MAX_WINDOW_DAYS),
  fetch: async ({ api, call }, partition, cursor) => {
    const { start, end } = windowOf(partition, cursor);
    if (start > partition.until) return [];
    const { artistId, source } = partition;
    return [
      await api.exchange(stat, { source, artist_id: artistId, since: start, until: end }, call),
    ];
  },
  read: (exchanges, partition, cursor) => {
    if (exchanges.length === 0) return { records: [], next: null };
    const series = stat.parse(single(exchanges).body);
    const { end } = windowOf(partition, cursor);
    return {
      records: series.points,
      next: end < partition.until ? addDays(end, 1) : null,
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
          daily_diff: toNumber(field(point.raw, "daily_diff")),
          interpolated: toBoolean(field(point.raw, "interpolated")),
          raw: point.raw,
        },
      ],
    },
  ],
});
