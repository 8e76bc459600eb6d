import { z } from "zod";
import {
  AUDIENCE_DOMAINS,
  AUDIENCE_TYPES,
  CURATOR_PLATFORMS,
  EDITORIAL_PLATFORMS,
  PLAYLIST_STATUSES,
  STAT_SOURCES,
  STATS_TYPES,
} from "../enums.js";
import { dayOfTime, oneOrMany, toInteger, toDecimal, toText } from "../read-values.js";
import { asRecord } from "../../json/json-record.js";
import { readListPage, unwrapObject } from "../list-page.js";
import { listEndpoint, objectEndpoint } from "../endpoint.js";
import { API_PREFIX, defineOperation, segment } from "../operation.js";
import {
  calendarDate,
  limit,
  nonEmptyText,
  offset,
  oneOf,
  orderedRange,
  positiveInt,
} from "../params.js";

const BASE = "/artist-stats";

export interface ArtistIdLookup {
  /** The social artist id (`cm_artist`) the statistics operations take, when one was found. */
  readonly socialArtistId: number | null;
  /** The name the statistics API gives that artist, when its record carries one. */
  readonly name: string | null;
  readonly raw: unknown;
}

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

/**
 * `{obj: [{cm_artist, name, ...}]}` or `{obj: {cm_artist, name, ...}}`; `id` is accepted as a
 * fallback. The first record with an id is the artist.
 */
function toArtistIdLookup(body: unknown): ArtistIdLookup {
  const inner = unwrapObject(body);
  for (const candidate of oneOrMany(inner)) {
    const record = asRecord(candidate);
    const id = record ? toInteger(record.cm_artist ?? record.id) : null;
    if (record && id !== null) return { socialArtistId: id, name: toText(record.name), raw: body };
  }
  return { socialArtistId: null, name: null, raw: body };
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

const byArtist = z.object({ artist_id: positiveInt });
const window = { since: calendarDate.optional(), until: calendarDate.optional() };
const paging = { offset: offset.optional(), limit: limit.optional() };
const SINCE_ORDER = { message: "must not be after until", path: ["since"] };

export const artistId = defineOperation({
  name: "artistStats.artistId",
  params: z.object({ id: nonEmptyText }),
  request: (query) => ({ method: "GET", path: `${API_PREFIX}${BASE}/artist-id`, query }),
  parse: toArtistIdLookup,
});

export const artistIdFromIdentifiers = defineOperation({
  name: "artistStats.artistIdFromIdentifiers",
  params: byArtist,
  request: (query) => ({
    method: "GET",
    path: `${API_PREFIX}${BASE}/artist-id-from-identifiers`,
    query,
  }),
  parse: toArtistIdLookup,
});

export const stat = defineOperation({
  name: "artistStats.stat",
  params: z
    .object({ source: oneOf(STAT_SOURCES), artist_id: positiveInt, ...window })
    .refine(orderedRange, SINCE_ORDER),
  request: ({ source, ...query }) => ({
    method: "GET",
    path: `${API_PREFIX}${BASE}/stat/${segment(source)}`,
    query,
  }),
  parse: toStatSeries,
});

export const cmStats = objectEndpoint(`${BASE}/cm-stats`, byArtist);
export const social3AudienceStats = objectEndpoint(`${BASE}/social_3-audience-stats`, byArtist);
export const shortVideoAudienceStats = objectEndpoint(
  `${BASE}/short_video-audience-stats`,
  byArtist,
);
export const videoAudienceStats = objectEndpoint(`${BASE}/video-audience-stats`, byArtist);
export const videoMarketCoverage = objectEndpoint(`${BASE}/video-market-coverage`, byArtist);

export const socialAudienceStats = listEndpoint(
  `${BASE}/social-audience-stats`,
  z
    .object({
      artist_id: positiveInt,
      domain: oneOf(AUDIENCE_DOMAINS).optional(),
      audienceType: oneOf(AUDIENCE_TYPES).optional(),
      statsType: oneOf(STATS_TYPES).optional(),
      ...window,
      ...paging,
    })
    .refine(orderedRange, SINCE_ORDER),
);

export const editorialPlaylists = listEndpoint(
  `${BASE}/editorial-playlists`,
  z
    .object({
      artist_id: positiveInt,
      platform: oneOf(EDITORIAL_PLATFORMS).optional(),
      status: oneOf(PLAYLIST_STATUSES).optional(),
      ...window,
      ...paging,
    })
    .refine(orderedRange, SINCE_ORDER),
);

export const curatorPlaylists = listEndpoint(
  `${BASE}/curator-playlists`,
  z.object({ artist_id: positiveInt, platform: oneOf(CURATOR_PLATFORMS).optional(), ...paging }),
);

const byArtistOnDate = z.object({ artist_id: positiveInt, date: calendarDate.optional() });
export const radioAirplays = listEndpoint(`${BASE}/radio-airplays`, byArtistOnDate);
export const radio = listEndpoint(`${BASE}/radio`, byArtistOnDate);

export const charts = listEndpoint(
  `${BASE}/charts`,
  z.object({
    country_code: z
      .string()
      .regex(/^([A-Z]{2}|GLOBAL)$/, "must be a two-letter upper-case country code or GLOBAL")
      .optional(),
    genre: nonEmptyText.optional(),
    date: calendarDate.optional(),
    ...paging,
  }),
);

export const artistStatsOperations = {
  artistId,
  artistIdFromIdentifiers,
  cmStats,
  stat,
  social3AudienceStats,
  shortVideoAudienceStats,
  videoAudienceStats,
  socialAudienceStats,
  videoMarketCoverage,
  editorialPlaylists,
  curatorPlaylists,
  radioAirplays,
  radio,
  charts,
};
