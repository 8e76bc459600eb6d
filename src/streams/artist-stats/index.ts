import type { Stream } from "../stream.js";
import { artists } from "./artists.js";
import { audienceStats } from "./audience-stats.js";
import { chartEntries } from "./chart-entries.js";
import { cmStats } from "./cm-stats.js";
import { platformStats } from "./platform-stats.js";
import { playlistPlacements } from "./playlist-placements.js";
import { radio } from "./radio.js";
import { radioAirplays } from "./radio-airplays.js";
import { socialAudienceStats } from "./social-audience-stats.js";
import { urls } from "./urls.js";
import { videoMarketCoverage } from "./video-market-coverage.js";

/** The artist statistics streams in run order: the tracked artists first (the others read them). */
export const artistStatsStreams: readonly Stream[] = [
  artists,
  platformStats,
  cmStats,
  urls,
  audienceStats,
  socialAudienceStats,
  videoMarketCoverage,
  playlistPlacements,
  radioAirplays,
  radio,
  chartEntries,
];
