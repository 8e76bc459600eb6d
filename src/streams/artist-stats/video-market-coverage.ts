import { objectEndpoint } from "../../api/endpoint.js";
import { endpointStream } from "../endpoint-stream.js";
import { byArtist } from "./statistics-params.js";
import { TRACKED_ARTISTS } from "./tracked-artists.js";

export const videoMarketCoverageOperation = objectEndpoint(
  "/artist-stats/video-market-coverage",
  byArtist,
);

/**
 * One object (total views, the markets inside it) or the list of markets itself, one row per
 * market: upstreams answer either way, and name a market's fields their own way (each a
 * discovered column).
 */
export const videoMarketCoverage = endpointStream({
  name: "artist_stats_video_market_coverage",
  family: "artist_stats",
  partitions: TRACKED_ARTISTS,
  operation: videoMarketCoverageOperation,
  params: ({ artistId }) => ({ artist_id: artistId }),
  records: "object",
  table: "artist_stats.video_market_coverage",
  key: ["artist_id", "snapshot_date", "element"],
  mode: "snapshot",
  // The spec shows none of its fields: each is a discovered column, named as the upstream names it.
  columns: (_coverage, { position }) => ({ element: position }),
});
