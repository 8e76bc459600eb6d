import { dayInstant } from "../days.js";
import { hash32, rngFor } from "../prng.js";
import type { SocialArtist, StatPoint, StatSeries } from "./records.js";

type MetricKind = "count" | "score";

/** Metrics per /stat source, after the analytics API the statistics group proxies. */
export const STAT_SOURCES: Readonly<Record<string, ReadonlyArray<readonly [string, MetricKind]>>> =
  {
    music_streaming_1: [
      ["followers", "count"],
      ["popularity", "score"],
      ["listeners", "count"],
    ],
    music_streaming_2: [["fans", "count"]],
    social_1: [
      ["likes", "count"],
      ["talks", "count"],
    ],
    social_2: [["followers", "count"]],
    social_3: [["followers", "count"]],
    video_channel: [
      ["subscribers", "count"],
      ["views", "count"],
    ],
    video_artist: [["views", "count"]],
    encyclopedia: [["views", "count"]],
    concerts: [["followers", "count"]],
    audio_sharing: [
      ["followers", "count"],
      ["plays", "count"],
    ],
    short_video: [
      ["followers", "count"],
      ["likes", "count"],
    ],
    live_streaming: [
      ["followers", "count"],
      ["views", "count"],
    ],
  };

// Growth is measured from a fixed origin so a day's value never depends on the window asked.
const ORIGIN_DAY = 18_262; // 2020-01-01

/**
 * A metric's value on a day. It never decreases: floor(base + rate × (n + 0.9·u(n))) with u in
 * [0, 1) stays below the next day's floor(base + rate × (n + 1)).
 */
export function statValue(
  seed: number,
  cmArtist: number,
  source: string,
  metric: string,
  day: number,
) {
  const rng = rngFor(seed, "stat", cmArtist, source, metric);
  const kind = STAT_SOURCES[source]?.find(([name]) => name === metric)?.[1] ?? "count";
  const n = day - ORIGIN_DAY;
  const jitter = 0.9 * (hash32(seed, "stat-day", cmArtist, source, metric, day) / 2 ** 32);
  if (kind === "score") {
    return Math.min(100, Math.max(0, Math.floor(rng.int(15, 60) + 0.01 * (n + jitter))));
  }
  const base = Math.round(10 ** (3 + rng.next() * 3.5));
  const rate = base * (0.0005 + rng.next() * 0.004);
  return Math.max(0, Math.floor(base + rate * (n + jitter)));
}

/** Whether an artist has no data on a source: its metrics answer empty arrays. */
export function isEmptySource(seed: number, cmArtist: number, source: string): boolean {
  return rngFor(seed, "stat-empty", cmArtist, source).chance(0.2);
}

export function sourceLink(artist: SocialArtist, source: string): string {
  const id = source === "music_streaming_1" ? artist.music_streaming_1 : String(artist.cm_artist);
  return `https://${source.replaceAll("_", "-")}.example/artist/${id}`;
}

/** One point per day of [since, until]; until is never later than `today`. */
export function statSeries(
  seed: number,
  artist: SocialArtist,
  source: string,
  since: number,
  until: number,
): StatSeries {
  const empty = isEmptySource(seed, artist.cm_artist, source);
  const metrics: Record<string, StatPoint[]> = {};
  for (const [metric] of STAT_SOURCES[source] ?? []) {
    const points: StatPoint[] = [];
    for (let day = since; !empty && day <= until; day++) {
      const value = statValue(seed, artist.cm_artist, source, metric, day);
      points.push({
        value,
        timestp: dayInstant(day),
        daily_diff: value - statValue(seed, artist.cm_artist, source, metric, day - 1),
        interpolated:
          hash32(seed, "interpolated", artist.cm_artist, source, metric, day) % 10 === 0,
      });
    }
    metrics[metric] = points;
  }
  return { link: empty ? null : sourceLink(artist, source), metrics };
}
