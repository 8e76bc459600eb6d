import type { JsonRecord } from "../../api/extract.js";
import { toText } from "../../api/extract.js";
import { defineStream } from "../stream.js";
import { type ArtistPartition, artistPartitions, artistScope } from "./tracked-artists.js";

export const urls = defineStream<ArtistPartition, JsonRecord>({
  name: "artist_stats_urls",
  family: "artist_stats",
  partitions: artistPartitions,
  fetch: async ({ api, call }, { artistId }) => ({
    records: (await api.artistStats.urls({ artist_id: artistId }, call)).records,
    next: null,
  }),
  outputs: [
    {
      target: { table: "artist_stats.urls", key: ["artist_id", "domain", "url"], columns: ["raw"] },
      // The current list replaces the artist's rows: a url the upstream no longer lists goes.
      mode: "replace",
      scope: artistScope,
      rows: (url, partition) => [
        { ...artistScope(partition), domain: toText(url.domain), url: toText(url.url), raw: url },
      ],
    },
  ],
});
