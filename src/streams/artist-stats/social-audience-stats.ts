import { z } from "zod";
import { listEndpoint } from "../../api/endpoint.js";
import { AUDIENCE_DOMAINS, AUDIENCE_TYPES, STATS_TYPES } from "../../api/enums.js";
import { oneOf, orderedRange, positiveInt } from "../../api/params.js";
import { endpointStream } from "../endpoint-stream.js";
import { offsetPaging } from "../paging.js";
import { OFFSET_LIMIT, SINCE_ORDER, SINCE_UNTIL } from "./statistics-params.js";
import { trackedArtistsBy } from "./tracked-artists.js";

export const socialAudienceStatsOperation = listEndpoint(
  "/artist-stats/social-audience-stats",
  z
    .object({
      artist_id: positiveInt,
      domain: oneOf(AUDIENCE_DOMAINS).optional(),
      audienceType: oneOf(AUDIENCE_TYPES).optional(),
      statsType: oneOf(STATS_TYPES).optional(),
      ...SINCE_UNTIL,
      ...OFFSET_LIMIT,
    })
    .refine(orderedRange, SINCE_ORDER),
);

/** One breakdown of one artist's audience: domain × audience type × statistics type. */
const BREAKDOWNS = trackedArtistsBy(
  ({ config }) => {
    const { domains, audience_types, stats_types } = config.artist_stats.social_audience;
    return { domain: domains, audienceType: audience_types, statsType: stats_types };
  },
  { domain: "domain", audienceType: "audience_type", statsType: "stats_type" },
);

export const socialAudienceStats = endpointStream({
  name: "artist_stats_social_audience_stats",
  family: "artist_stats",
  partitions: BREAKDOWNS,
  operation: socialAudienceStatsOperation,
  params: ({ artistId, domain, audienceType, statsType }) => ({
    artist_id: artistId,
    domain,
    audienceType,
    statsType,
  }),
  paging: offsetPaging(socialAudienceStatsOperation.name, 100, "limit"),
  records: "list",
  table: "artist_stats.social_audience_stats",
  key: ["artist_id", "domain", "audience_type", "stats_type", "snapshot_date", "position"],
  mode: "snapshot",
  // Entries have no id of their own: their place in the upstream's list (largest first) is
  // their key. The spec shows none of their fields: each is a discovered column.
  columns: (_entry, { position }) => ({ position }),
});
