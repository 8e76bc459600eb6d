// The sandbox's public contract: the project's tests, demo and CLI code against these names.
import type { SandboxDataset } from "./dataset/dataset.js";

export interface SandboxOptions {
  /** Default 0 (ephemeral). */
  port?: number;
  /** Interface to listen on; default 127.0.0.1 (0.0.0.0 in a container, for other containers). */
  host?: string;
  /** Default "sandbox-key"; requests need `Authorization: Bearer <apiKey>`. */
  apiKey?: string;
  /** Default 1; the same seed and size give byte-identical data. */
  seed?: number;
  size?: Partial<SandboxSize>;
  knobs?: KnobsPatch;
  /** YYYY-MM-DD, the sandbox's "now" for snapshots and defaults; default the current UTC date. */
  today?: string;
}

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

export type FaultKind = "html503" | "error500" | "reset" | "truncated" | "slow";

export interface DriftKnobs {
  extraFields: boolean;
  numbersAsStrings: boolean;
  nulls: boolean;
  renamedEnum: boolean;
  /** Some measures and dates in forms no reader can type: "n/a", "12,5", "21/01/2026". */
  malformed: boolean;
}

export interface SandboxKnobs {
  /** null = no limit. Over the limit in the current epoch second => 429. */
  requestsPerSecond: number | null;
  /** On 429: Retry-After + X-RateLimit-*, or only X-RateLimit-Reset. */
  rateLimitHeaders: "retry-after" | "reset-only";
  /** Added to every response. */
  latencyMs: number;
  /** 0..1 probability that a request gets a fault. */
  faultRate: number;
  /** Faults drawn from, uniformly. */
  faults: FaultKind[];
  /** Delay of the "slow" fault. */
  slowMs: number;
  /** Every request's socket is destroyed without a reply. */
  down: boolean;
  /** Trends list: bare array of items, or the totals fields with the items under `data`. */
  listShape: "array" | "object";
  /** Payouts, pending payouts and incomes: `{status: true, data}` or a bare array. */
  royaltiesShape: "wrapped" | "array";
  /** /artist-stats/charts: `{obj: {length, data}}` or `{obj: [...]}`. */
  chartsShape: "wrapped" | "array";
  drift: DriftKnobs;
  /** POST /payouts: perform the first request but destroy the socket instead of answering. */
  dropFirstPayoutResponse: boolean;
}

/** Knobs to change; drift merges field by field. */
export type KnobsPatch = Partial<Omit<SandboxKnobs, "drift">> & { drift?: Partial<DriftKnobs> };

export interface SandboxStats {
  /** All requests received, including 401s, 429s and faults. */
  requests: number;
  byOperation: Record<string, number>;
  byStatus: Record<number, number>;
  /** 429s sent. */
  rateLimited: number;
  faults: Record<FaultKind, number>;
  unauthorized: number;
  /** Most requests in flight at once. */
  peakConcurrency: number;
  /** Epoch second of arrival -> requests that arrived in it. */
  perSecond: Record<number, number>;
  /** Epoch second of the answer -> 429s sent in it. */
  rateLimitedPerSecond: Record<number, number>;
  maxPerSecond: number;
}

export interface Sandbox {
  /** "http://127.0.0.1:PORT"; clients append /api/v1/... */
  url: string;
  apiKey: string;
  /** What the sandbox serves, before drift; routes read through the same accessors. */
  data: SandboxDataset;
  stats(): SandboxStats;
  resetStats(): void;
  setKnobs(knobs: KnobsPatch): void;
  /** Closes the server and every open socket promptly, even with slow responses pending. */
  close(): Promise<void>;
}
