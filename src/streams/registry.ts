import { UsageError } from "../errors.js";
import { didYouMean } from "../similar-names.js";
import { artistStatsStreams } from "./artist-stats/index.js";
import { catalogueStreams } from "./catalogue/index.js";
import { royaltiesStreams } from "./royalties/index.js";
import { STREAM_FAMILIES } from "../config/families.js";
import type { Stream } from "./stream.js";
import { trendChartPoints } from "./trends/trend-chart-points.js";
import { trendItems } from "./trends/trend-items.js";
import { trendTotals } from "./trends/trend-totals.js";

/** Every stream, by family, then as listed: the order of summaries (runs follow `Stream.after`). */
export const STREAMS: readonly Stream[] = [
  ...catalogueStreams,
  trendTotals,
  trendItems,
  trendChartPoints,
  ...artistStatsStreams,
  ...royaltiesStreams,
].sort((a, b) => STREAM_FAMILIES.indexOf(a.family) - STREAM_FAMILIES.indexOf(b.family));

/** What the configuration and the commands may name: every stream, and every family. */
export const STREAM_NAMES: readonly string[] = [...STREAMS.map((s) => s.name), ...STREAM_FAMILIES];

/** The streams named by `--only` (stream or family names), in registry order; all when none. */
export function selectStreams(only: readonly string[] | undefined): Stream[] {
  if (!only || only.length === 0) return [...STREAMS];
  const known = new Set<string>(STREAM_NAMES);
  const unknown = only.filter((name) => !known.has(name));
  if (unknown.length > 0) {
    const named = unknown.map((name) => `"${name}"${didYouMean(name, known)}`);
    throw new UsageError(`unknown stream ${named.join(", ")}; known: ${[...known].join(", ")}`);
  }
  return STREAMS.filter((s) => only.includes(s.name) || only.includes(s.family));
}
