/**
 * `requests_per_second`: a fixed rate, or "auto": the rate the upstream states, learned as the
 * client goes and shared through the request budget.
 */
export type RequestRate = number | "auto";

/**
 * Where "auto" starts, and where it stays when the upstream never states its limit. The upstream's
 * limits are per second and per plan, and 2 req/s is a reported plan (upstream-notes.md).
 */
export const AUTO_START_RATE = 2;

/**
 * Without a stated limit, each 429 multiplies the rate by this (multiplicative decrease). There is
 * no additive increase: probing upward finds the limit only by earning 429s, again and again.
 */
export const AUTO_BACKOFF_FACTOR = 0.5;

/** The back-off stops here (one request every 10 s): a 429 may come from another client's use. */
export const AUTO_MIN_RATE = 0.1;

/**
 * How long a learned rate outlives its last confirmation. A stated limit is confirmed by every
 * answer that states it; a rate lowered by 429s only by the next decrease, so this long after the
 * last one "auto" starts over and finds out whether the upstream still needs it.
 */
export const LEARNED_RATE_TTL_MS = 60 * 60 * 1000;

/** A change of the shared rate, in requests per second. */
export interface RateChange {
  readonly from: number;
  readonly to: number;
}

/**
 * The rate a budget allows now, and where it comes from: a fixed `requests_per_second`
 * ("config"), or with "auto" AUTO_START_RATE ("start"), the upstream's X-RateLimit-Limit
 * ("limit"), or a rate lowered by 429s ("backoff").
 */
export interface CurrentRate {
  readonly requestsPerSecond: number;
  readonly source: "config" | "start" | "limit" | "backoff";
}
