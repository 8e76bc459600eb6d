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
import { asRecord, type JsonRecord, toInteger, toNumber, toText, unwrapObj } from "../extract.js";
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
import { type RecordList, type Snapshot, toRecordList, toSnapshot } from "../results.js";

const BASE = `${API_PREFIX}/artist-stats`;

export interface ArtistIdLookup {
  /** The social artist id (`cm_artist`) the statistics operations take, when one was found. */
  readonly socialArtistId: number | null;
  readonly raw: unknown;
}

export interface StatPoint {
  readonly metric: string;
  /** YYYY-MM-DD of the point's timestamp. */
  readonly day: string | null;
  readonly value: number | null;
  readonly raw: JsonRecord;
}

export interface StatSeries {
  readonly points: readonly StatPoint[];
  readonly raw: unknown;
}

/** `{obj: [{cm_artist, ...}]}` or `{obj: {cm_artist, ...}}`; `id` is accepted as a fallback. */
function toArtistIdLookup(body: unknown): ArtistIdLookup {
  const inner = unwrapObj(body);
  const candidates = Array.isArray(inner) ? inner : [inner];
  for (const candidate of candidates) {
    const record = asRecord(candidate);
    const id = record ? toInteger(record.cm_artist ?? record.id) : null;
    if (id !== null) return { socialArtistId: id, raw: body };
  }
  return { socialArtistId: null, raw: body };
}

/** A point of a metric: `{value, timestp, ...}`; anything else in the array is not a point. */
function toStatPoint(metric: string, item: unknown): StatPoint[] {
  const raw = asRecord(item);
  if (!raw || !("value" in raw || "timestp" in raw)) return [];
  const stamp = toText(raw.timestp ?? raw.timestamp ?? raw.date);
  return [{ metric, day: stamp ? stamp.slice(0, 10) : null, value: toNumber(raw.value), raw }];
}

/**
 * Every array directly under the `obj` object is a metric: `{followers: [{value, timestp}...]}`.
 * Other fields (`link`, nested objects) are not metrics, and stay in the raw body.
 */
function toStatSeries(body: unknown): StatSeries {
  const inner = asRecord(unwrapObj(body)) ?? {};
  const points = Object.entries(inner).flatMap(([metric, series]) =>
    Array.isArray(series) ? series.flatMap((item: unknown) => toStatPoint(metric, item)) : [],
  );
  return { points, raw: body };
}

const byArtist = z.object({ artist_id: positiveInt });
const window = { since: calendarDate.optional(), until: calendarDate.optional() };
const paging = { offset: offset.optional(), limit: limit.optional() };
const SINCE_ORDER = { message: "must not be after until", path: ["since"] };

function snapshotOperation(name: string, path: string) {
  return defineOperation({
    name,
    params: byArtist,
    request: (query: z.output<typeof byArtist>) => ({
      method: "GET" as const,
      path: `${BASE}${path}`,
      query,
    }),
    parse: (body): Snapshot => toSnapshot(body),
  });
}

function listOperation<S extends z.ZodType<Record<string, string | number | undefined>>>(
  name: string,
  path: string,
  params: S,
) {
  return defineOperation({
    name,
    params,
    request: (query: z.output<S>) => ({ method: "GET" as const, path: `${BASE}${path}`, query }),
    parse: (body): RecordList => toRecordList(body),
  });
}

export const artistId = defineOperation({
  name: "artistStats.artistId",
  params: z.object({ id: nonEmptyText }),
  request: (query) => ({ method: "GET", path: `${BASE}/artist-id`, query }),
  parse: toArtistIdLookup,
});

export const artistIdFromIdentifiers = defineOperation({
  name: "artistStats.artistIdFromIdentifiers",
  params: byArtist,
  request: (query) => ({ method: "GET", path: `${BASE}/artist-id-from-identifiers`, query }),
  parse: toArtistIdLookup,
});

export const stat = defineOperation({
  name: "artistStats.stat",
  params: z
    .object({ source: oneOf(STAT_SOURCES), artist_id: positiveInt, ...window })
    .refine(orderedRange, SINCE_ORDER),
  request: ({ source, ...query }) => ({
    method: "GET",
    path: `${BASE}/stat/${segment(source)}`,
    query,
  }),
  parse: toStatSeries,
});

export const cmStats = snapshotOperation("artistStats.cmStats", "/cm-stats");
export const social3AudienceStats = snapshotOperation(
  "artistStats.social3AudienceStats",
  "/social_3-audience-stats",
);
export const shortVideoAudienceStats = snapshotOperation(
  "artistStats.shortVideoAudienceStats",
  "/short_video-audience-stats",
);
export const videoAudienceStats = snapshotOperation(
  "artistStats.videoAudienceStats",
  "/video-audience-stats",
);
export const videoMarketCoverage = snapshotOperation(
  "artistStats.videoMarketCoverage",
  "/video-market-coverage",
);

export const urls = listOperation("artistStats.urls", "/urls", byArtist);

export const socialAudienceStats = listOperation(
  "artistStats.socialAudienceStats",
  "/social-audience-stats",
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

export const editorialPlaylists = listOperation(
  "artistStats.editorialPlaylists",
  "/editorial-playlists",
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

export const curatorPlaylists = listOperation(
  "artistStats.curatorPlaylists",
  "/curator-playlists",
  z.object({ artist_id: positiveInt, platform: oneOf(CURATOR_PLATFORMS).optional(), ...paging }),
);

const byArtistOnDate = z.object({ artist_id: positiveInt, date: calendarDate.optional() });
export const radioAirplays = listOperation(
  "artistStats.radioAirplays",
  "/radio-airplays",
  byArtistOnDate,
);
export const radio = listOperation("artistStats.radio", "/radio", byArtistOnDate);

export const charts = listOperation(
  "artistStats.charts",
  "/charts",
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
  urls,
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
