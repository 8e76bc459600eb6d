import { toInteger, toText, field, toInstant } from "../../api/read-values.js";
import { cmStats as cmStatsOperation } from "../../api/operations/artist-stats.js";
import { NO_PAGING } from "../paging.js";
import { defineStream, ONE_REQUEST } from "../stream.js";
import {
  AFTER_TRACKED_ARTISTS,
  type ArtistPartition,
  artistPartitions,
  artistScope,
} from "./tracked-artists.js";
import { readSnapshot } from "./snapshot-records.js";

export const cmStats = defineStream<ArtistPartition, unknown>({
  name: "artist_stats_cm_stats",
  family: "artist_stats",
  paging: NO_PAGING,
  after: AFTER_TRACKED_ARTISTS,
  partitions: artistPartitions,
  requests: ONE_REQUEST,
  fetch: async (_context, { artistId }, page) => [
    await page.exchange(cmStatsOperation, { artist_id: artistId }),
  ],
  read: readSnapshot,
  outputs: [
    {
      target: {
        table: "artist_stats.cm_stats",
        key: ["artist_id", "snapshot_date"],
      },
      mode: "snapshot",
      scope: artistScope,
      rows: (stats, partition) => [
        {
          ...artistScope(partition),
          name: toText(field(stats, "name")),
          cm_rank: toInteger(field(stats, "cm_rank")),
          measured_at: toInstant(field(stats, "timestp")),
          raw: stats,
        },
      ],
    },
  ],
});
