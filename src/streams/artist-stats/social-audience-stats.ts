import type { AudienceDomain, AudienceType, StatsType } from "../../api/enums.js";
import { toDecimal, toText, toInstant } from "../../api/read-values.js";
import { type JsonRecord } from "../../json/json-record.js";
import { socialAudienceStats as listOperation } from "../../api/operations/artist-stats.js";
import { listRead, single } from "../list-read.js";
import { offsetPaging } from "../paging.js";
import { defineStream } from "../stream.js";
import { product } from "../dimensions.js";
import { AFTER_TRACKED_ARTISTS, type ArtistPartition } from "./tracked-artists.js";

const paging = offsetPaging(listOperation.name, 100, "limit");

/** One breakdown of one artist's audience: domain × audience type × statistics type. */
interface BreakdownPartition extends ArtistPartition {
  readonly domain: AudienceDomain;
  readonly audienceType: AudienceType;
  readonly statsType: StatsType;
}

function breakdownScope({ artistId, domain, audienceType, statsType }: BreakdownPartition) {
  return { artist_id: artistId, domain, audience_type: audienceType, stats_type: statsType };
}

export const socialAudienceStats = defineStream<BreakdownPartition, JsonRecord, typeof paging>({
  name: "artist_stats_social_audience_stats",
  family: "artist_stats",
  paging,
  after: AFTER_TRACKED_ARTISTS,
  partitions: async (context) => {
    const { domains, audience_types, stats_types } = context.config.artist_stats.social_audience;
    return product({
      artistId: await context.trackedArtistIds(),
      domain: domains,
      audienceType: audience_types,
      statsType: stats_types,
    });
  },
  fetch: async (_context, { artistId, domain, audienceType, statsType }, page) => [
    await page.exchange(listOperation, { artist_id: artistId, domain, audienceType, statsType }),
  ],
  read: (exchanges) => listRead(listOperation.parse(single(exchanges).body)),
  outputs: [
    {
      target: {
        table: "artist_stats.social_audience_stats",
        key: ["artist_id", "domain", "audience_type", "stats_type", "snapshot_date", "position"],
      },
      mode: "snapshot",
      scope: breakdownScope,
      // Entries have no id of their own: their place in the upstream's list (largest first) is
      // their key.
      rows: (entry, partition, position) => [
        {
          ...breakdownScope(partition),
          position,
          code: toText(entry.code),
          name: toText(entry.name),
          value: toDecimal(entry.value),
          percent: toDecimal(entry.percent),
          measured_at: toInstant(entry.timestp),
          raw: entry,
        },
      ],
    },
  ],
});
