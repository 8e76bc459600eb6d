import { firstField, toDecimal, toInstant, toInteger, toText } from "../../api/read-values.js";
import { videoMarketCoverage as coverageOperation } from "../../api/operations/artist-stats.js";
import { endpointStream } from "../endpoint-stream.js";
import { TRACKED_ARTISTS } from "./tracked-artists.js";

/**
 * One object (total views, the markets inside it) or the list of markets itself, one row per
 * market: upstreams answer either way, and name a market's fields their own way.
 */
export const videoMarketCoverage = endpointStream({
  name: "artist_stats_video_market_coverage",
  family: "artist_stats",
  partitions: TRACKED_ARTISTS,
  operation: coverageOperation,
  params: ({ artistId }) => ({ artist_id: artistId }),
  records: "object",
  table: "artist_stats.video_market_coverage",
  key: ["artist_id", "snapshot_date", "element"],
  mode: "snapshot",
  columns: (coverage, { position }) => ({
    element: position,
    total_views: toInteger(firstField(coverage, "total_views")),
    measured_at: toInstant(firstField(coverage, "timestp", "timestamp", "measured_at")),
    market_code: toText(
      firstField(coverage, "code", "country_code", "countryCode", "country", "iso", "market"),
    ),
    market_name: toText(firstField(coverage, "name", "country_name", "countryName", "market_name")),
    views: toInteger(firstField(coverage, "views", "view_count", "views_count")),
    share: toDecimal(firstField(coverage, "percent", "percentage", "share", "pct")),
  }),
});
