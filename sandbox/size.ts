import { formatDay, requireDay } from "./days.js";

export interface SandboxSize {
  /** First day with sales. */
  startDate: string;
  /** Days of trends data. */
  days: number;
  /** Catalogue products, each with 1..12 assets. */
  products: number;
  /** Catalogue artists. */
  artists: number;
  dsps: number;
  labels: number;
  /** Artists known to the statistics API. */
  socialArtists: number;
  /** Most rows per (artist, platform, status) of editorial or curator playlists. */
  playlistsPerArtist: number;
  /** Rows per (country, genre, day) chart. */
  chartRows: number;
  payouts: number;
  incomes: number;
  /** Most entities with sales in one (day, selection type, sale type): a trends page's list. */
  trendItemsCap: number;
}

// Defaults make every list in the sandbox need several pages at the upstream's page sizes.
export const DEFAULT_SIZE: SandboxSize = {
  startDate: "2026-01-01",
  days: 30,
  products: 120,
  artists: 60,
  dsps: 30,
  labels: 12,
  socialArtists: 8,
  playlistsPerArtist: 120,
  chartRows: 150,
  payouts: 25,
  incomes: 300,
  trendItemsCap: 1000,
};

/** The defaults with `partial` applied; throws on a size the generators cannot honour. */
export function resolveSize(partial: Partial<SandboxSize> = {}): SandboxSize {
  const size = { ...DEFAULT_SIZE, ...partial };
  requireDay(size.startDate, "size.startDate");
  for (const [key, value] of Object.entries(size)) {
    if (key === "startDate") continue;
    if (!Number.isInteger(value) || (value as number) < 0) {
      throw new Error(`size.${key} must be a non-negative integer`);
    }
  }
  // Catalogue artists own the products; DSPs, territories and labels are trend universes.
  for (const key of ["artists", "dsps", "labels"] as const) {
    if (size[key] < 1) throw new Error(`size.${key} must be at least 1`);
  }
  return size;
}

/**
 * The size whose sales end the day before `today`, `days` long, unless `partial` sets startDate:
 * the standalone sandbox stands in for the real API, whose sales reach yesterday, so a client
 * pointed at it for recent days finds some. startSandbox's default stays DEFAULT_SIZE's fixed
 * month, so that a test's days do not move with the clock.
 */
export function sizeEndingBefore(today: string, partial: Partial<SandboxSize> = {}): SandboxSize {
  const size = resolveSize(partial);
  if (partial.startDate !== undefined) return size;
  return { ...size, startDate: formatDay(requireDay(today, "today") - size.days) };
}
