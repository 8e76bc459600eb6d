import { dayInstant } from "../days.js";
import { rngFor } from "../prng.js";
import type { CmStats, SocialArtist } from "./records.js";
import { isEmptySource, STAT_SOURCES, statValue } from "./stat-series.js";

/** The artist's summary: the latest value of every metric it has data for, as of `today`. */
export function cmStats(seed: number, artist: SocialArtist, today: number): CmStats {
  const stats: Record<string, number> = {};
  for (const [source, metrics] of Object.entries(STAT_SOURCES)) {
    if (isEmptySource(seed, artist.cm_artist, source)) continue;
    for (const [metric] of metrics) {
      stats[`${source}_${metric}`] = statValue(seed, artist.cm_artist, source, metric, today);
    }
  }
  return {
    cm_artist: artist.cm_artist,
    name: artist.name,
    cm_rank: rngFor(seed, "cm-rank", artist.cm_artist, today).int(1, 500_000),
    timestp: dayInstant(today),
    stats,
  };
}
