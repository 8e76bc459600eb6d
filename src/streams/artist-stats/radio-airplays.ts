import { toInteger, toText, field } from "../../api/read-values.js";
import { radioAirplays as radioAirplaysOperation } from "../../api/operations/artist-stats.js";
import { endpointStream } from "../endpoint-stream.js";
import { ARTIST_DAYS } from "./tracked-artists.js";

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
  columns: (airplay, { position }) => ({
    position,
    station_name: toText(field(airplay, "station", "name")),
    station_city: toText(field(airplay, "station", "city")),
    station_country_code: toText(field(airplay, "station", "country_code")),
    track_name: toText(field(airplay, "track", "name")),
    isrc: toText(field(airplay, "track", "isrc")),
    plays: toInteger(airplay.plays),
  }),
});
