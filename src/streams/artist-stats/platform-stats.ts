import { z } from "zod";
import { STAT_SOURCES, type StatSource } from "../../api/enums.js";
import { readListPage, unwrapObject } from "../../api/list-page.js";
import { API_PREFIX, defineOperation, segment } from "../../api/operation.js";
import { oneOf, orderedRange, positiveInt } from "../../api/params.js";
import { dayOfTime, field, toDay, toDecimal, toText } from "../../api/read-values.js";
import { asRecord } from "../../json/json-record.js";
import { endpointStream } from "../endpoint-stream.js";
import type { PartitionSet } from "../partition-set.js";
import { notRecords } from "../record-selectors.js";
import { addDays, daysFrom, isCalendarDate } from "../../time/calendar.js";
import { product } from "../dimensions.js";
import { type WindowPartition, windowPaging } from "../paging.js";
import type { PlanContext } from "../stream.js";
import { SINCE_ORDER, SINCE_UNTIL } from "./statistics-params.js";
import { AFTER_TRACKED_ARTISTS } from "./tracked-artists.js";

export interface StatPoint {
  readonly metric: string;
  /** YYYY-MM-DD of the point's time, or null when it has none that can be read. */
  readonly day: string | null;
  readonly value: string | null;
  /** The point as received: an object, or a `[time, value]` pair. */
  readonly raw: unknown;
}

export interface StatSeries {
  readonly points: readonly StatPoint[];
  /** Items that are neither a point object nor a `[time, value]` pair. */
  readonly others: readonly unknown[];
  /** False when the body holds something, but no series could be found in it. */
  readonly found: boolean;
  readonly raw: unknown;
}

const TIME_FIELDS = ["timestp", "timestamp", "date", "day", "time", "ts"];
const METRIC_FIELDS = ["metric", "name", "type", "stat"];

/** A point: `{value, timestp|timestamp|date...}` or a `[time, value]` pair; null for anything else. */
function toStatPoint(metric: string, item: unknown): StatPoint | null {
  if (Array.isArray(item) && item.length >= 2) {
    return { metric, day: dayOfTime(item[0]), value: toDecimal(item[1]), raw: item };
  }
  const raw = asRecord(item);
  if (!raw) return null;
  const time = TIME_FIELDS.map((field) => raw[field]).find((v) => v !== undefined && v !== null);
  return { metric, day: dayOfTime(time), value: toDecimal(raw.value), raw };
}

/** The series of a metric field: its array, or the array inside `{data: [...]}` and the like. */
function seriesOf(value: unknown): readonly unknown[] | null {
  if (Array.isArray(value)) return value as unknown[];
  const record = asRecord(value);
  if (!record) return null;
  const list = readListPage(record);
  return list.items.length > 0 ? [...list.items] : null;
}

/**
 * A /stat answer's points, in whichever shape they come: one array per metric under `obj`
 * (`{followers: [{value, timestp}]}`, the documented one), pairs (`{followers: [[time, value]]}`),
 * a metric's array inside an object (`{followers: {data: [...]}}`), or one flat list of rows
 * naming their metric (`[{metric, date, value}]`). Fields that are not series (`link`) stay in
 * the raw body.
 */
function toStatSeries(body: unknown): StatSeries {
  const inner = unwrapObject(body);
  const points: StatPoint[] = [];
  const others: unknown[] = [];
  const add = (metric: string, item: unknown) => {
    const point = toStatPoint(metric, item);
    if (point) points.push(point);
    else others.push(item);
  };
  let found = inner === null || inner === undefined;
  if (Array.isArray(inner)) {
    found = true;
    for (const item of inner) {
      const record = asRecord(item);
      const metric = record
        ? METRIC_FIELDS.map((field) => toText(record[field])).find((m) => m !== null)
        : undefined;
      add(metric ?? "value", item);
    }
  } else {
    const record = asRecord(inner) ?? {};
    found ||= Object.values(record).every((value) => value === null || typeof value !== "object");
    for (const [metric, value] of Object.entries(record)) {
      const series = seriesOf(value);
      if (!series) continue;
      found = true;
      for (const item of series) add(metric, item);
    }
  }
  return { points, others, found, raw: body };
}

/** A metric's series of one source, over a window of days. */
export const statOperation = defineOperation({
  name: "artistStats.stat",
  params: z
    .object({ source: oneOf(STAT_SOURCES), artist_id: positiveInt, ...SINCE_UNTIL })
    .refine(orderedRange, SINCE_ORDER),
  request: ({ source, ...query }) => ({
    method: "GET",
    path: `${API_PREFIX}/artist-stats/stat/${segment(source)}`,
    query,
  }),
  parse: toStatSeries,
});

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
  operation: statOperation,
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
