import { listEndpoint } from "../../api/endpoint.js";
import { endpointStream } from "../endpoint-stream.js";
import { byArtistOnDate } from "./statistics-params.js";
import { ARTIST_DAYS } from "./tracked-artists.js";

export const radioOperation = listEndpoint("/artist-stats/radio", byArtistOnDate);

export const radio = endpointStream({
  name: "artist_stats_radio",
  family: "artist_stats",
  partitions: ARTIST_DAYS,
  operation: radioOperation,
  params: ({ artistId, day }) => ({ artist_id: artistId, date: day }),
  records: "list",
  table: "artist_stats.radio",
  key: ["artist_id", "snapshot_date", "position"],
  // Rows have no id: the day's list replaces the stored one, in the upstream's order.
  mode: "replace",
  // The spec shows none of its fields: each is a discovered column, named as the upstream names it.
  columns: (_spin, { position }) => ({ position }),
});
