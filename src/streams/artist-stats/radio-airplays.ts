import { toInteger, toText, field } from "../../api/read-values.js";
import { type JsonRecord } from "../../json/json-record.js";
import { radioAirplays as radioAirplaysOperation } from "../../api/operations/artist-stats.js";
import { listRead, single } from "../list-read.js";
import { NO_PAGING } from "../paging.js";
import { defineStream } from "../stream.js";
import {
  AFTER_TRACKED_ARTISTS,
  type ArtistDayPartition,
  artistDayPartitions,
  artistDayScope,
} from "./tracked-artists.js";

export const radioAirplays = defineStream<ArtistDayPartition, JsonRecord>({
  name: "artist_stats_radio_airplays",
  family: "artist_stats",
  paging: NO_PAGING,
  after: AFTER_TRACKED_ARTISTS,
  daily: true,
  partitions: artistDayPartitions,
  fetch: async (_context, { artistId, day }, page) => [
    await page.exchange(radioAirplaysOperation, { artist_id: artistId, date: day }),
  ],
  read: (exchanges) => listRead(radioAirplaysOperation.parse(single(exchanges).body)),
  outputs: [
    {
      target: {
        table: "artist_stats.radio_airplays",
        key: ["artist_id", "snapshot_date", "position"],
      },
      // Rows have no id (a station and track can appear twice a day): the day's list replaces
      // the stored one, in the upstream's order.
      mode: "replace",
      scope: artistDayScope,
      rows: (airplay, partition, position) => [
        {
          ...artistDayScope(partition),
          position,
          station_name: toText(field(airplay, "station", "name")),
          station_city: toText(field(airplay, "station", "city")),
          station_country_code: toText(field(airplay, "station", "country_code")),
          track_name: toText(field(airplay, "track", "name")),
          isrc: toText(field(airplay, "track", "isrc")),
          plays: toInteger(airplay.plays),
          raw: airplay,
        },
      ],
    },
  ],
});
