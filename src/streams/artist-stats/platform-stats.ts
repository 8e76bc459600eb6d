import { STAT_SOURCES, type StatSource } from "../../api/enums.js";
import { toNumber } from "../../api/extract.js";
import type { StatPoint } from "../../api/operations/artist-stats.js";
import { addDays, isCalendarDate } from "../../time/calendar.js";
import { defineStream, type Partition, type PlanContext } from "../stream.js";
import { trackedArtistIds } from "./tracked-artists.js";
import { field, toBoolean, toDay } from "../typed-values.js";

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
 * First sync: from start_date. Later: from the last `until` minus lookback_days (late and restated
 * values), never before start_date. Always up to yesterday, the last complete day.
 */
function seriesWindow(
  { config, today }: Pick<PlanContext, "config" | "today">,
  checkpoint: unknown,
): { since: string; until: string } {
  const previous = checkpointUntil(checkpoint);
  const resume = previous ? addDays(previous, -config.lookback_days) : config.start_date;
  return {
    since: resume > config.start_date ? resume : config.start_date,
    until: addDays(today, -1),
  };
}

async function seriesPartitions(context: PlanContext): Promise<SeriesPartition[]> {
  const series = (await trackedArtistIds(context)).flatMap((artistId) =>
    STAT_SOURCES.map((source) => ({ key: `${artistId}|${source}`, artistId, source })),
  );
  const checkpoints = await context.checkpoints(series.map(({ key }) => key));
  return series.map((s) => ({ ...s, ...seriesWindow(context, checkpoints.get(s.key)) }));
}

export const platformStats = defineStream<SeriesPartition, StatPoint>({
  name: "artist_stats_platform_stats",
  family: "artist_stats",
  partitions: seriesPartitions,
  // Each page is one window of at most MAX_WINDOW_DAYS days; the cursor is the next window's start.
  fetch: async ({ api, call }, { artistId, source, since, until }, cursor) => {
    const start = (cursor as string | null) ?? since;
    if (start > until) return { records: [], next: null };
    const windowEnd = addDays(start, MAX_WINDOW_DAYS - 1);
    const end = windowEnd < until ? windowEnd : until;
    const { points } = await api.artistStats.stat(
      { source, artist_id: artistId, since: start, until: end },
      call,
    );
    return { records: points, next: end < until ? addDays(end, 1) : null };
  },
  checkpoint: ({ until }) => ({ until }),
  outputs: [
    {
      target: {
        table: "artist_stats.platform_stats",
        key: ["artist_id", "source", "metric", "day"],
        columns: ["value", "daily_diff", "interpolated", "raw"],
      },
      mode: "upsert",
      rows: (point, { artistId, source }) => [
        {
          artist_id: artistId,
          source,
          metric: point.metric,
          day: toDay(point.day),
          value: point.value,
          daily_diff: toNumber(point.raw.daily_diff),
          interpolated: toBoolean(point.raw.interpolated),
          raw: point.raw,
        },
      ],
    },
  ],
});
