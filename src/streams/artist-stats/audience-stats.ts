import { AUDIENCE_DOMAINS, type AudienceDomain } from "../../api/enums.js";
import { toInteger, toDecimal, field, toInstant } from "../../api/read-values.js";
import {
  shortVideoAudienceStats,
  social3AudienceStats,
  videoAudienceStats,
} from "../../api/operations/artist-stats.js";
import { NO_PAGING } from "../paging.js";
import { defineStream, ONE_REQUEST } from "../stream.js";
import { product } from "../dimensions.js";
import { AFTER_TRACKED_ARTISTS, type ArtistPartition } from "./tracked-artists.js";
import { readSnapshot } from "../snapshot-read.js";

/** One artist's audience on one domain: one of the three *-audience-stats paths. */
interface AudiencePartition extends ArtistPartition {
  readonly domain: AudienceDomain;
}

function audienceOperation(domain: AudienceDomain) {
  switch (domain) {
    case "social_3":
      return social3AudienceStats;
    case "short_video":
      return shortVideoAudienceStats;
    case "video":
      return videoAudienceStats;
  }
}

function audienceScope({ artistId, domain }: AudiencePartition) {
  return { artist_id: artistId, domain };
}

export const audienceStats = defineStream<AudiencePartition, unknown>({
  name: "artist_stats_audience_stats",
  family: "artist_stats",
  paging: NO_PAGING,
  after: AFTER_TRACKED_ARTISTS,
  partitions: async (context) =>
    product({ artistId: await context.trackedArtistIds(), domain: AUDIENCE_DOMAINS }),
  requests: ONE_REQUEST,
  fetch: async (_context, { artistId, domain }, page) => [
    await page.exchange(audienceOperation(domain), { artist_id: artistId }),
  ],
  read: readSnapshot,
  outputs: [
    {
      target: {
        table: "artist_stats.audience_stats",
        key: ["artist_id", "domain", "snapshot_date", "element"],
      },
      mode: "snapshot",
      scope: audienceScope,
      rows: (audience, partition, element) => [
        {
          ...audienceScope(partition),
          element,
          followers: toInteger(field(audience, "followers")),
          engagement_rate: toDecimal(field(audience, "engagement_rate")),
          avg_likes_per_post: toDecimal(field(audience, "avg_likes_per_post")),
          avg_comments_per_post: toDecimal(field(audience, "avg_comments_per_post")),
          measured_at: toInstant(field(audience, "timestp")),
          raw: audience,
        },
      ],
    },
  ],
});
