import { toInteger, field, toInstant } from "../../api/read-values.js";
import { videoMarketCoverage as coverageOperation } from "../../api/operations/artist-stats.js";
import { artistSnapshotStream } from "./snapshot-records.js";

export const videoMarketCoverage = artistSnapshotStream({
  name: "artist_stats_video_market_coverage",
  operation: coverageOperation,
  table: "artist_stats.video_market_coverage",
  columns: (coverage) => ({
    total_views: toInteger(field(coverage, "total_views")),
    measured_at: toInstant(field(coverage, "timestp")),
  }),
});
