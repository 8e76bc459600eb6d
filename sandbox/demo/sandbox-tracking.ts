import type { SandboxDataset } from "../index.js";

/**
 * What to track in the sandbox account (config keys of ETL_CONFIG): broad searches that need
 * several pages, every way of finding an artist, and one chart.
 */
export function sandboxTracking(data: SandboxDataset) {
  const [first, second] = data.socialArtists();
  return {
    start_date: data.size.startDate,
    upcs: ["0", "1"],
    artist_names: ["a", "o"],
    territory_keys: ["all"],
    dsp_keys: ["all"],
    social_artist_ids: first ? [first.cm_artist] : [],
    streaming_artist_ids: second ? [second.music_streaming_1] : [],
    charts: [{ country_code: "GLOBAL", genre: "All Genres" }],
  };
}
