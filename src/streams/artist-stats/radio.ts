import { toInteger, toText } from "../../api/read-values.js";
import { radio as radioOperation } from "../../api/operations/artist-stats.js";
import { endpointStream } from "../endpoint-stream.js";
import { ARTIST_DAYS } from "./tracked-artists.js";

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
  columns: (spin, { position }) => ({
    position,
    station_name: toText(spin.station_name),
    market: toText(spin.market),
    format: toText(spin.format),
    spins: toInteger(spin.spins),
    audience: toInteger(spin.audience),
  }),
});
