import { AUDIENCE_DOMAINS, type AudienceDomain } from "../../api/enums.js";
import {
  shortVideoAudienceStats,
  social3AudienceStats,
  videoAudienceStats,
} from "../../api/operations/artist-stats.js";
import { endpointStream } from "../endpoint-stream.js";
import { trackedArtistsBy } from "./tracked-artists.js";

/** Each domain's audience is one of the three *-audience-stats paths. */
const OPERATIONS = {
  social_3: social3AudienceStats,
  short_video: shortVideoAudienceStats,
  video: videoAudienceStats,
} satisfies Record<AudienceDomain, unknown>;

export const audienceStats = endpointStream({
  name: "artist_stats_audience_stats",
  family: "artist_stats",
  partitions: trackedArtistsBy(() => ({ domain: AUDIENCE_DOMAINS }), { domain: "domain" }),
  operation: ({ domain }: { readonly domain: AudienceDomain }) => OPERATIONS[domain],
  params: ({ artistId }) => ({ artist_id: artistId }),
  records: "object",
  table: "artist_stats.audience_stats",
  key: ["artist_id", "domain", "snapshot_date", "element"],
  mode: "snapshot",
  // The spec shows none of its fields: each is a discovered column, named as the upstream names it.
  columns: (_audience, { position }) => ({ element: position }),
});
