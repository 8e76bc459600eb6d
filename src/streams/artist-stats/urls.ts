import { toText, toKeyTexts } from "../../api/read-values.js";
import { type JsonRecord } from "../../json/json-record.js";
import { urls as urlsOperation } from "../../api/operations/artist-stats.js";
import { listRead, single } from "../list-read.js";
import { NO_PAGING } from "../paging.js";
import { defineStream } from "../stream.js";
import {
  AFTER_TRACKED_ARTISTS,
  type ArtistPartition,
  artistPartitions,
  artistScope,
} from "./tracked-artists.js";

export const urls = defineStream<ArtistPartition, JsonRecord>({
  name: "artist_stats_urls",
  family: "artist_stats",
  paging: NO_PAGING,
  after: AFTER_TRACKED_ARTISTS,
  partitions: artistPartitions,
  fetch: async (_context, { artistId }, page) => [
    await page.exchange(urlsOperation, { artist_id: artistId }),
  ],
  read: (exchanges) => listRead(urlsOperation.parse(single(exchanges).body)),
  outputs: [
    {
      target: { table: "artist_stats.urls", key: ["artist_id", "domain", "url"] },
      // The current list replaces the artist's rows: a url the upstream no longer lists goes.
      mode: "replace",
      scope: artistScope,
      rows: (url, partition) => [
        {
          ...artistScope(partition),
          domain: toText(url.domain),
          url: toKeyTexts(url.url),
          raw: url,
        },
      ],
    },
  ],
});
