import { toInteger, toText } from "../../api/read-values.js";
import { type JsonRecord } from "../../json/json-record.js";
import { radio as radioOperation } from "../../api/operations/artist-stats.js";
import { listRead, single } from "../list-read.js";
import { NO_PAGING } from "../paging.js";
import { defineStream } from "../stream.js";
import {
  AFTER_TRACKED_ARTISTS,
  type ArtistDayPartition,
  artistDayPartitions,
  artistDayScope,
} from "./tracked-artists.js";

export const radio = defineStream<ArtistDayPartition, JsonRecord>({
  name: "artist_stats_radio",
  family: "artist_stats",
  paging: NO_PAGING,
  after: AFTER_TRACKED_ARTISTS,
  daily: true,
  partitions: artistDayPartitions,
  fetch: async (_context, { artistId, day }, page) => [
    await page.exchange(radioOperation, { artist_id: artistId, date: day }),
  ],
  read: (exchanges) => listRead(radioOperation.parse(single(exchanges).body)),
  outputs: [
    {
      target: {
        table: "artist_stats.radio",
        key: ["artist_id", "snapshot_date", "position"],
      },
      // Rows have no id: the day's list replaces the stored one, in the upstream's order.
      mode: "replace",
      scope: artistDayScope,
      rows: (spin, partition, position) => [
        {
          ...artistDayScope(partition),
          position,
          station_name: toText(spin.station_name),
          market: toText(spin.market),
          format: toText(spin.format),
          spins: toInteger(spin.spins),
          audience: toInteger(spin.audience),
          raw: spin,
        },
      ],
    },
  ],
});
