import { AUDIENCE_DOMAINS, type AudienceDomain } from "../../api/enums.js";
import { objectEndpoint } from "../../api/endpoint.js";
import { endpointStream } from "../endpoint-stream.js";
import { byArtist } from "./statistics-params.js";
import { trackedArtistsBy } from "./tracked-artists.js";

/** Each domain's audience is one of the three *-audience-stats paths. */
export const AUDIENCE_OPERATIONS = {
  social_3: objectEndpoint("/artist-stats/social_3-audience-stats", byArtist),
  short_video: objectEndpoint("/artist-stats/short_video-audience-stats", byArtist),
  video: objectEndpoint("/artist-stats/video-audience-stats", byArtist),
} satisfies Record<AudienceDomain, unknown>;

export const audienceStats = endpointStream({
  name: "artist_stats_audience_stats",
  family: "artist_stats",
  partitions: trackedArtistsBy(() => ({ domain: AUDIENCE_DOMAINS }), { domain: "domain" }),
  operation: ({ domain }: { readonly domain: AudienceDomain }) => AUDIENCE_OPERATIONS[domain],
  params: ({ artistId }) => ({ artist_id: artistId }),
  records: "object",
  table: "artist_stats.audience_stats",
  key: ["artist_id", "domain", "snapshot_date", "element"],
  mode: "snapshot",
  // The spec shows none of its fields: each is a discovered column, named as the upstream names it.
  columns: (_audience, { position }) => ({ element: position }),
});
