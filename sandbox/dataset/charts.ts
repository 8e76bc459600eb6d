import { hash32, rngFor } from "../prng.js";
import { GENRES } from "./genres.js";
import { isrcCode, registrantCode } from "./identifiers.js";
import { nameFor } from "./names.js";
import type { ChartRow, SocialArtist } from "./records.js";
import { TERRITORIES } from "./territories.js";

export const CHART_GENRES: readonly string[] = ["All Genres", ...GENRES];
export const CHART_COUNTRIES: readonly string[] = [
  "GLOBAL",
  ...TERRITORIES.map((territory) => territory.code),
];

/** Days a track stays a candidate after it enters; the pool holds LIFETIME × entries a day. */
const LIFETIME = 30;
const MEMO_LIMIT = 5_000;

interface Candidate {
  entryDay: number;
  slot: number;
}

/**
 * Daily charts with a history that holds together: each day a few tracks enter a candidate pool
 * and decay over LIFETIME days; a day's chart is the top of the pool by score. pre_rank, peak_rank
 * and time_on_chart are read from the previous days' charts, so a day costs O(LIFETIME × rows).
 */
export class ChartBook {
  private readonly ranks = new Map<string, Map<string, number>>();

  constructor(
    private readonly seed: number,
    private readonly rows: number,
    private readonly socialArtists: () => readonly SocialArtist[],
  ) {}

  chart(country: string, genre: string, day: number): ChartRow[] {
    const today = this.dayRanks(country, genre, day);
    const yesterday = this.dayRanks(country, genre, day - 1);
    const rows: ChartRow[] = [];
    for (const [key, rank] of today) {
      const [entryDay, slot] = key.split(":").map(Number);
      if (entryDay === undefined || slot === undefined) continue;
      let peak = rank;
      let timeOnChart = 0;
      for (let past = entryDay; past <= day; past++) {
        const pastRank = this.dayRanks(country, genre, past).get(key);
        if (pastRank === undefined) continue;
        timeOnChart++;
        peak = Math.min(peak, pastRank);
      }
      rows.push({
        rank,
        pre_rank: yesterday.get(key) ?? null,
        peak_rank: peak,
        time_on_chart: timeOnChart,
        ...this.track(country, genre, { entryDay, slot }),
      });
    }
    return rows.sort((a, b) => a.rank - b.rank);
  }

  /** Rank of each charting track ("entryDay:slot") on one day. */
  private dayRanks(country: string, genre: string, day: number): Map<string, number> {
    const memoKey = `${country}|${genre}|${day}`;
    const memo = this.ranks.get(memoKey);
    if (memo) return memo;
    const entriesPerDay = Math.ceil(this.rows / 10);
    const scored: { key: string; score: number }[] = [];
    for (let entryDay = day - LIFETIME + 1; entryDay <= day; entryDay++) {
      for (let slot = 0; slot < entriesPerDay; slot++) {
        const rng = rngFor(this.seed, "chart-track", country, genre, entryDay, slot);
        const quality = rng.next() ** 2;
        const halfLife = rng.int(3, 15);
        const noise =
          0.9 +
          0.2 * (hash32(this.seed, "chart-noise", country, genre, entryDay, slot, day) / 2 ** 32);
        scored.push({
          key: `${entryDay}:${slot}`,
          score: quality * 0.5 ** ((day - entryDay) / halfLife) * noise,
        });
      }
    }
    scored.sort((a, b) => b.score - a.score || (a.key < b.key ? -1 : 1));
    const ranks = new Map(scored.slice(0, this.rows).map((entry, i) => [entry.key, i + 1]));
    // Charts are asked for a few days at a time; the bound only stops a long-lived sandbox growing.
    if (this.ranks.size >= MEMO_LIMIT) this.ranks.clear();
    this.ranks.set(memoKey, ranks);
    return ranks;
  }

  private track(country: string, genre: string, { entryDay, slot }: Candidate) {
    const rng = rngFor(this.seed, "chart-track-meta", country, genre, entryDay, slot);
    const socials = this.socialArtists();
    const social = socials.length > 0 && rng.chance(0.15) ? rng.pick(socials) : undefined;
    const cmArtist = social?.cm_artist ?? rng.int(1_000, 9_999_999);
    return {
      artist: { cm_artist: cmArtist, name: social?.name ?? nameFor(this.seed, "artist", cmArtist) },
      track: {
        name: nameFor(this.seed, "track", entryDay, slot),
        isrc: isrcCode(
          rng.pick(["US", "GB", "FR", "DE", "KR", "BR"]),
          registrantCode(rng),
          rng.int(0, 99_999),
        ),
      },
    };
  }
}
