import { objectEndpoint } from "../../api/endpoint.js";
import { endpointStream } from "../endpoint-stream.js";
import { byArtist } from "./statistics-params.js";
import { TRACKED_ARTISTS } from "./tracked-artists.js";

/** The artist's summary; the tracked artists also read the name the statistics give it. */
export const cmStatsOperation = objectEndpoint("/artist-stats/cm-stats", byArtist);

/** The artist's summary as it is on the run's date. */
export const cmStats = endpointStream({
  name: "artist_stats_cm_stats",
  family: "artist_stats",
  partitions: TRACKED_ARTISTS,
  operation: cmStatsOperation,
  params: ({ artistId }) => ({ artist_id: artistId }),
  records: "object",
  table: "artist_stats.cm_stats",
  key: ["artist_id", "snapshot_date", "element"],
  mode: "snapshot",
  // The spec shows none of its fields: each is a discovered column, named as the upstream names it.
  columns: (_stats, { position }) => ({ element: position }),
});
