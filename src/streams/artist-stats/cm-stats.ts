import { toInteger, toText, field, toInstant } from "../../api/read-values.js";
import { cmStats as cmStatsOperation } from "../../api/operations/artist-stats.js";
import { artistSnapshotStream } from "./snapshot-records.js";

export const cmStats = artistSnapshotStream({
  name: "artist_stats_cm_stats",
  operation: cmStatsOperation,
  table: "artist_stats.cm_stats",
  columns: (stats) => ({
    name: toText(field(stats, "name")),
    cm_rank: toInteger(field(stats, "cm_rank")),
    measured_at: toInstant(field(stats, "timestp")),
  }),
});
