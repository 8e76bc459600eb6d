import { listEndpoint } from "../../api/endpoint.js";
import { endpointStream } from "../endpoint-stream.js";
import { byArtistOnDate } from "./statistics-params.js";
import { ARTIST_DAYS } from "./tracked-artists.js";

export const radioAirplaysOperation = listEndpoint("/artist-stats/radio-airplays", byArtistOnDate);

export const radioAirplays = endpointStream({
  name: "artist_stats_radio_airplays",
  family: "artist_stats",
  partitions: ARTIST_DAYS,
  operation: radioAirplaysOperation,
  params: ({ artistId, day }) => ({ artist_id: artistId, date: day }),
  records: "list",
  table: "artist_stats.radio_airplays",
  key: ["artist_id", "snapshot_date", "position"],
  // Rows have no id (a station and track can appear twice a day): the day's list replaces the
  // stored one, in the upstream's order.
  mode: "replace",
  // The spec shows none of its fields: each is a discovered column, named as the upstream names it.
  columns: (_airplay, { position }) => ({ position }),
});
