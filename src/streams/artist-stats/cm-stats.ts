import { cmStats as cmStatsOperation } from "../../api/operations/artist-stats.js";
import { endpointStream } from "../endpoint-stream.js";
import { TRACKED_ARTISTS } from "./tracked-artists.js";

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
