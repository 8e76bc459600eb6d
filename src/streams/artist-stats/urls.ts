import { z } from "zod";
import { listEndpoint } from "../../api/endpoint.js";
import { positiveInt } from "../../api/params.js";
import { toText, toKeyTexts } from "../../api/read-values.js";
import { endpointStream } from "../endpoint-stream.js";
import { TRACKED_ARTISTS } from "./tracked-artists.js";

export const urlsOperation = listEndpoint(
  "/artist-stats/urls",
  z.object({ artist_id: positiveInt }),
);

export const urls = endpointStream({
  name: "artist_stats_urls",
  family: "artist_stats",
  partitions: TRACKED_ARTISTS,
  operation: urlsOperation,
  params: ({ artistId }) => ({ artist_id: artistId }),
  records: "list",
  table: "artist_stats.urls",
  key: ["artist_id", "domain", "url"],
  // The current list replaces the artist's rows: a url the upstream no longer lists is deleted.
  mode: "replace",
  columns: (url) => ({ domain: toText(url.domain), url: toKeyTexts(url.url) }),
});
