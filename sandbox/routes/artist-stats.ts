import { AUDIENCE_DOMAINS, AUDIENCE_TYPES, STATS_TYPES } from "../dataset/audience.js";
import { CHART_COUNTRIES, CHART_GENRES } from "../dataset/charts.js";
import type { SandboxDataset } from "../dataset/dataset.js";
import {
  addedWithin,
  CURATOR_PLATFORMS,
  EDITORIAL_PLATFORMS,
  PLAYLIST_STATUSES,
} from "../dataset/playlists.js";
import type { AudienceDomain, SocialArtist } from "../dataset/records.js";
import { STAT_SOURCES } from "../dataset/stat-series.js";
import { formatDay, parseDay } from "../days.js";
import { HttpError, ValidationError } from "../http/errors.js";
import { pageOf } from "../http/paging.js";
import { date, integer, oneOf, optional, parseParams, required, text } from "../http/params.js";
import { ok, type Reply } from "../http/reply.js";
import type { Route, RouteContext } from "../http/router.js";
import { coverageBody, nestedPage, servedLimit, snapshotBody, statBody } from "../shapes.js";

const PREFIX = "/api/v1/artist-stats";
const MAX_WINDOW_DAYS = 365;
const DEFAULT_WINDOW_DAYS = 30;
const artist_id = required(integer());
const offset = optional(integer(0), 0);

/** Every success body of this group is wrapped in `{obj: ...}`, as the proxied API does. */
function wrapped(value: unknown): Reply {
  return ok({ obj: value });
}

function todayOf(data: SandboxDataset): number {
  return parseDay(data.today) ?? 0;
}

/** The social artist `id`; 404 when the statistics API does not know it. */
export function knownSocialArtist(data: SandboxDataset, id: number): SocialArtist {
  const artist = data.socialArtist(id);
  if (!artist) throw new HttpError(404, { message: `Artist ${id} not found` });
  return artist;
}

/** The social artist of `artist_id`. */
function socialArtist({ query, data }: RouteContext): SocialArtist {
  return knownSocialArtist(data, parseParams(query, { artist_id }).artist_id);
}

/** since/until with the upstream's defaults (the last 30 days) and its 365-day window cap. */
function window(query: Record<string, string>, today: number) {
  const { since, until } = parseParams(query, {
    since: optional(date, null),
    until: optional(date, today),
  });
  const first = since ?? until - DEFAULT_WINDOW_DAYS;
  if (first > until) {
    throw new ValidationError({
      since: ["The since field must be a date before or equal to until."],
    });
  }
  if (until - first > MAX_WINDOW_DAYS) {
    throw new HttpError(400, {
      message: `The window between since and until must not exceed ${MAX_WINDOW_DAYS} days.`,
    });
  }
  return { since: formatDay(first), until: formatDay(until) };
}

/** The three snapshot operations differ only by domain. */
function audienceRoute(path: string, operation: string, domain: AudienceDomain): Route {
  return {
    method: "GET",
    path: `${PREFIX}/${path}`,
    operation,
    handle: (context) =>
      wrapped(
        snapshotBody(
          context.data.audienceStats(socialArtist(context).cm_artist, domain),
          context.knobs.shapes,
        ),
      ),
  };
}

/** /radio-airplays and /radio: rows of one day, today by default. */
function radioRoute(path: string, operation: string, rows: "radioAirplays" | "radio"): Route {
  return {
    method: "GET",
    path: `${PREFIX}/${path}`,
    operation,
    handle: (context) => {
      const artist = socialArtist(context);
      const { date: day } = parseParams(context.query, {
        date: optional(date, todayOf(context.data)),
      });
      return wrapped(context.data[rows](artist.cm_artist, formatDay(day)));
    },
  };
}

export const artistStatsRoutes: Route[] = [
  {
    method: "GET",
    path: `${PREFIX}/artist-id`,
    operation: "artistStats.artistId",
    handle: ({ query, data }) => {
      const { id } = parseParams(query, { id: required(text) });
      return wrapped(data.socialArtists().filter((artist) => artist.music_streaming_1 === id));
    },
  },
  {
    method: "GET",
    path: `${PREFIX}/artist-id-from-identifiers`,
    operation: "artistStats.artistIdFromIdentifiers",
    handle: ({ query, data }) => {
      const { artist_id: id } = parseParams(query, { artist_id });
      return wrapped(data.socialArtists().find((artist) => artist.artist_id === id) ?? null);
    },
  },
  {
    method: "GET",
    path: `${PREFIX}/cm-stats`,
    operation: "artistStats.cmStats",
    handle: (context) =>
      wrapped(
        snapshotBody(context.data.cmStats(socialArtist(context).cm_artist), context.knobs.shapes),
      ),
  },
  {
    method: "GET",
    path: `${PREFIX}/stat/:source`,
    operation: "artistStats.stat",
    handle: (context) => {
      const source = context.params.source ?? "";
      if (!(source in STAT_SOURCES))
        throw new ValidationError({ source: ["The selected source is invalid."] });
      const artist = socialArtist(context);
      const { since, until } = window(context.query, todayOf(context.data));
      const series = context.data.statSeries(artist.cm_artist, source, since, until);
      return wrapped(statBody(series, context.knobs.shapes));
    },
  },
  audienceRoute("social_3-audience-stats", "artistStats.social3AudienceStats", "social_3"),
  audienceRoute("short_video-audience-stats", "artistStats.shortVideoAudienceStats", "short_video"),
  audienceRoute("video-audience-stats", "artistStats.videoAudienceStats", "video"),
  {
    method: "GET",
    path: `${PREFIX}/social-audience-stats`,
    operation: "artistStats.socialAudienceStats",
    handle: (context) => {
      const artist = socialArtist(context);
      const params = parseParams(context.query, {
        domain: optional(oneOf(AUDIENCE_DOMAINS), "social_3"),
        audienceType: optional(oneOf(AUDIENCE_TYPES), "followers"),
        statsType: optional(oneOf(STATS_TYPES), "country"),
        offset,
        limit: optional(integer(1, 100), 10),
      });
      // A snapshot as of `until`; since is validated with it but selects nothing.
      const { until } = window(context.query, todayOf(context.data));
      const rows = context.data.socialAudienceStats(
        artist.cm_artist,
        params.domain,
        params.audienceType,
        params.statsType,
        until,
      );
      return wrapped(pageOf(rows, params.offset, servedLimit(params.limit, context.knobs.shapes)));
    },
  },
  {
    method: "GET",
    path: `${PREFIX}/video-market-coverage`,
    operation: "artistStats.videoMarketCoverage",
    handle: (context) =>
      wrapped(
        coverageBody(
          context.data.videoMarketCoverage(socialArtist(context).cm_artist),
          context.knobs.shapes,
        ),
      ),
  },
  {
    method: "GET",
    path: `${PREFIX}/editorial-playlists`,
    operation: "artistStats.editorialPlaylists",
    handle: (context) => {
      const artist = socialArtist(context);
      const params = parseParams(context.query, {
        platform: optional(oneOf(EDITORIAL_PLATFORMS), "music_streaming_1"),
        status: optional(oneOf(PLAYLIST_STATUSES), "current"),
        since: optional(date, null),
        until: optional(date, null),
        offset,
        limit: optional(integer(1, 100), 50),
      });
      const entries = context.data.editorialPlaylists(
        artist.cm_artist,
        params.platform,
        params.status,
      );
      const limit = servedLimit(params.limit, context.knobs.shapes);
      return wrapped(
        pageOf(addedWithin(entries, params.since, params.until), params.offset, limit),
      );
    },
  },
  {
    method: "GET",
    path: `${PREFIX}/curator-playlists`,
    operation: "artistStats.curatorPlaylists",
    handle: (context) => {
      const artist = socialArtist(context);
      const params = parseParams(context.query, {
        platform: optional(oneOf(CURATOR_PLATFORMS), "music_streaming_1"),
        offset,
        limit: optional(integer(1, 100), 50),
      });
      const entries = context.data.curatorPlaylists(artist.cm_artist, params.platform);
      return wrapped(
        pageOf(entries, params.offset, servedLimit(params.limit, context.knobs.shapes)),
      );
    },
  },
  radioRoute("radio-airplays", "artistStats.radioAirplays", "radioAirplays"),
  radioRoute("radio", "artistStats.radio", "radio"),
  {
    method: "GET",
    path: `${PREFIX}/charts`,
    operation: "artistStats.charts",
    handle: ({ query, data, knobs }) => {
      const params = parseParams(query, {
        country_code: optional(oneOf(CHART_COUNTRIES), "GLOBAL"),
        genre: optional(oneOf(CHART_GENRES), "All Genres"),
        date: optional(date, todayOf(data)),
        offset,
        limit: optional(integer(1, 200), 100),
      });
      const rows = data.chart(params.country_code, params.genre, formatDay(params.date));
      const page = pageOf(rows, params.offset, servedLimit(params.limit, knobs.shapes));
      if (knobs.shapes.namedObjects) return wrapped({ data: nestedPage(page, rows.length) });
      // The wrapped shape still tells the whole chart's length, capped pages or not.
      return wrapped(knobs.chartsShape === "wrapped" ? { length: rows.length, data: page } : page);
    },
  },
];
