// What the artist statistics' routes share: the `{obj}` wrapper, the artist asked for, the
// window of days with the upstream's defaults, and the routes that differ by a name only.
import type { SandboxDataset } from "../dataset/dataset.js";
import type { AudienceDomain, SocialArtist } from "../dataset/records.js";
import { operationNameOf } from "../../src/api/endpoint.js";
import { sandboxEndpoint, sandboxRoute } from "../http/endpoint-route.js";
import { formatDay, parseDay } from "../days.js";
import { HttpError, ValidationError } from "../http/errors.js";
import { date, integer, optional, parseParams, required } from "../http/params.js";
import { ok, type Reply } from "../http/reply.js";
import type { Route, RouteContext } from "../http/router.js";
import { snapshotBody } from "../shapes.js";

export const PREFIX = "/api/v1/artist-stats";
const MAX_WINDOW_DAYS = 365;
const DEFAULT_WINDOW_DAYS = 30;
export const artist_id = required(integer());
export const offset = optional(integer(0), 0);

/** Every success body of this group is wrapped in `{obj: ...}`, as the proxied API does. */
export function wrapped(value: unknown): Reply {
  return ok({ obj: value });
}

export function todayOf(data: SandboxDataset): number {
  return parseDay(data.today) ?? 0;
}

/** The social artist `id`; 404 when the statistics API does not know it. */
export function knownSocialArtist(data: SandboxDataset, id: number): SocialArtist {
  const artist = data.socialArtist(id);
  if (!artist) throw new HttpError(404, { message: `Artist ${id} not found` });
  return artist;
}

/** The social artist of `artist_id`. */
export function socialArtist({ query, data }: RouteContext): SocialArtist {
  return knownSocialArtist(data, parseParams(query, { artist_id }).artist_id);
}

/** since/until with the upstream's defaults (the last 30 days) and its 365-day window cap. */
export function window(query: Record<string, string>, today: number) {
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
export function audienceRoute(path: string, domain: AudienceDomain): Route {
  return sandboxRoute({
    method: "GET",
    path: `${PREFIX}/${path}`,
    operation: operationNameOf(`/artist-stats/${path}`),
    handle: (context) =>
      wrapped(
        snapshotBody(
          context.data.audienceStats(socialArtist(context).cm_artist, domain),
          context.knobs.shapes,
        ),
      ),
  });
}

/** The parameters of /radio-airplays and /radio: an artist and a day. */
const RADIO_PARAMS = { artist_id, date: optional(date, null) };

/** /radio-airplays and /radio: an endpoint of records, the rows of one day, today by default. */
export function radioEndpoint(path: string, rows: "radioAirplays" | "radio") {
  return sandboxEndpoint({
    path: `${PREFIX}/${path}`,
    params: RADIO_PARAMS,
    records: (data, { artist_id: id, date: day }): readonly unknown[] =>
      data[rows](knownSocialArtist(data, id).cm_artist, formatDay(day ?? todayOf(data))),
  });
}
