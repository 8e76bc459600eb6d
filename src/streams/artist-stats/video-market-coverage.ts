import { toInteger, field, toInstant } from "../../api/read-values.js";
import { videoMarketCoverage as coverageOperation } from "../../api/operations/artist-stats.js";
import { NO_PAGING } from "../paging.js";
import { defineStream, ONE_REQUEST } from "../stream.js";
import {
  AFTER_TRACKED_ARTISTS,
  type ArtistPartition,
  artistPartitions,
  artistScope,
} from "./tracked-artists.js";
import { readSnapshot } from "./snapshot-records.js";

export const videoMarketCoverage = defineStream<ArtistPartition, unknown>({
  name: "artist_stats_video_market_coverage",
  family: "artist_stats",
  paging: NO_PAGING,
  after: AFTER_TRACKED_ARTISTS,
  partitions: artistPartitions,
  requests: ONE_REQUEST,
  fetch: async (_context, { artistId }, page) => [
    await page.exchange(coverageOperation, { artist_id: artistId }),
  ],
  read: readSnapshot,
  outputs: [
    {
      target: {
        table: "artist_stats.video_market_coverage",
        key: ["artist_id", "snapshot_date"],
      },
      mode: "snapshot",
      scope: artistScope,
      rows: (coverage, partition) => [
        {
          ...artistScope(partition),
          total_views: toInteger(field(coverage, "total_views")),
          measured_at: toInstant(field(coverage, "timestp")),
          raw: coverage,
        },
      ],
    },
  ],
});
