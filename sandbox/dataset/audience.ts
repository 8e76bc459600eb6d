import { dayInstant } from "../days.js";
import { type Rng, rngFor } from "../prng.js";
import {
  AGE_GROUPS,
  BRANDS,
  CITIES,
  GENDERS,
  INTERESTS,
  LANGUAGES,
  STAT_NAMES,
} from "./audience-vocabulary.js";
import type {
  AudienceDomain,
  AudienceSnapshot,
  CityShare,
  CountryShare,
  PercentShare,
  SocialArtist,
  SocialAudienceRow,
  VideoMarketCoverage,
} from "./records.js";
import { statValue } from "./stat-series.js";
import { strideWalk } from "./stride-walk.js";
import { TERRITORIES } from "./territories.js";

export const AUDIENCE_DOMAINS: readonly AudienceDomain[] = ["social_3", "short_video", "video"];
export const AUDIENCE_TYPES = ["followers", "likes", "commenters"] as const;
export const STATS_TYPES = [
  "country",
  "city",
  "interest",
  "brand",
  "language",
  "stat",
  "demographic",
] as const;
export type AudienceType = (typeof AUDIENCE_TYPES)[number];
export type StatsType = (typeof STATS_TYPES)[number];

/** The /stat metric an audience domain's follower count comes from, to keep both consistent. */
const FOLLOWER_METRIC: Record<AudienceDomain, readonly [string, string]> = {
  social_3: ["social_3", "followers"],
  short_video: ["short_video", "followers"],
  video: ["video_channel", "subscribers"],
};

const DEMOGRAPHICS = GENDERS.flatMap((gender) => AGE_GROUPS.map((age) => `${gender} ${age}`));

/** Weights for `count` entries, largest first, as percentages with two decimals. */
function percentages(rng: Rng, count: number): number[] {
  const weights = Array.from({ length: count }, () => 0.05 + rng.next() ** 2).sort((a, b) => b - a);
  const sum = weights.reduce((total, weight) => total + weight, 0);
  return weights.map((weight) => Math.round((weight / sum) * 10_000) / 100);
}

function followersOf(seed: number, artist: SocialArtist, domain: AudienceDomain, day: number) {
  const [source, metric] = FOLLOWER_METRIC[domain];
  return statValue(seed, artist.cm_artist, source, metric, day);
}

/** What one of the three *-audience-stats operations answers for (artist, today). */
export function audienceSnapshot(
  seed: number,
  artist: SocialArtist,
  domain: AudienceDomain,
  today: number,
): AudienceSnapshot {
  const rng = rngFor(seed, "audience", artist.cm_artist, domain, today);
  const followers = followersOf(seed, artist, domain, today);
  const share = (percent: number) => Math.round((followers * percent) / 100);
  const countries = strideWalk(rng, TERRITORIES.length, 10);
  const countryShares = percentages(rng, countries.length);
  const top_countries: CountryShare[] = countries.map((index, i) => {
    const territory = TERRITORIES[index] ?? TERRITORIES[0];
    const percent = countryShares[i] ?? 0;
    return {
      code: territory?.code ?? "",
      name: territory?.name ?? "",
      followers: share(percent),
      percent,
    };
  });
  const cities = strideWalk(rng, CITIES.length, 10);
  const cityShares = percentages(rng, cities.length);
  const top_cities: CityShare[] = cities.map((index, i) => {
    const [name, countryCode] = CITIES[index] ?? ["", ""];
    const percent = cityShares[i] ?? 0;
    return { name, country_code: countryCode, followers: share(percent), percent };
  });
  const labelled = (codes: readonly string[]): PercentShare[] => {
    const shares = percentages(rng, codes.length);
    return codes.map((code, i) => ({ code, percent: shares[i] ?? 0 }));
  };
  const engagement = 0.005 + rng.next() * 0.08;
  return {
    cm_artist: artist.cm_artist,
    domain,
    timestp: dayInstant(today),
    followers,
    engagement_rate: Math.round(engagement * 10_000) / 10_000,
    avg_likes_per_post: Math.round(followers * engagement),
    avg_comments_per_post: Math.round(followers * engagement * 0.03),
    top_countries,
    top_cities,
    genders: labelled(GENDERS),
    age_groups: labelled(AGE_GROUPS),
  };
}

/** The (code, name) pairs a statistics type ranks. */
function statsUniverse(statsType: StatsType): ReadonlyArray<readonly [string | null, string]> {
  switch (statsType) {
    case "country":
      return TERRITORIES.map((territory) => [territory.code, territory.name]);
    case "city":
      return CITIES.map(([name, code]) => [code, name]);
    case "language":
      return LANGUAGES;
    case "interest":
      return INTERESTS.map((name) => [null, name]);
    case "brand":
      return BRANDS.map((name) => [null, name]);
    case "stat":
      return STAT_NAMES.map((name) => [null, name]);
    case "demographic":
      return DEMOGRAPHICS.map((name) => [null, name]);
  }
}

/** Rows of /social-audience-stats for one combination, as of `day`, largest first. */
export function socialAudienceRows(
  seed: number,
  artist: SocialArtist,
  domain: AudienceDomain,
  audienceType: AudienceType,
  statsType: StatsType,
  day: number,
): SocialAudienceRow[] {
  const rng = rngFor(
    seed,
    "social-audience",
    artist.cm_artist,
    domain,
    audienceType,
    statsType,
    day,
  );
  const universe = statsUniverse(statsType);
  const picked = strideWalk(
    rng,
    universe.length,
    rng.int(Math.min(5, universe.length), universe.length),
  );
  const shares = percentages(rng, picked.length);
  const audience =
    followersOf(seed, artist, domain, day) * (audienceType === "followers" ? 1 : 0.2);
  return picked.map((index, i) => {
    const [code, name] = universe[index] ?? [null, ""];
    const percent = shares[i] ?? 0;
    return {
      domain,
      audience_type: audienceType,
      stats_type: statsType,
      code,
      name,
      value: Math.round((audience * percent) / 100),
      percent,
      timestp: dayInstant(day),
    };
  });
}

/** Where the artist's videos are watched, as of `today`. */
export function videoMarketCoverage(
  seed: number,
  artist: SocialArtist,
  today: number,
): VideoMarketCoverage {
  const rng = rngFor(seed, "video-markets", artist.cm_artist, today);
  const views = statValue(seed, artist.cm_artist, "video_channel", "views", today);
  const markets = strideWalk(rng, TERRITORIES.length, 15);
  const shares = percentages(rng, markets.length);
  return {
    cm_artist: artist.cm_artist,
    timestp: dayInstant(today),
    total_views: views,
    markets: markets.map((index, i) => {
      const territory = TERRITORIES[index];
      const percent = shares[i] ?? 0;
      return {
        code: territory?.code ?? "",
        name: territory?.name ?? "",
        views: Math.round((views * percent) / 100),
        percent,
      };
    }),
  };
}
