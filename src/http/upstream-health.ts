import { FailureBodyError, RateLimitedError, UpstreamError } from "./upstream-errors.js";

/**
 * What one try says of the upstream's health: "failed" when the upstream itself failed (a
 * 5xx, a reset or refused connection, no answer in time, a body that is not the API's), "healthy"
 * for any answer of the API's own (a 2xx, a 4xx: a refusal is an answer; a body in the API's
 * format that declares a failure), and null when it says nothing either way (a 429 is the rate's
 * business; the caller's own abort).
 */
export type HealthSign = "healthy" | "failed" | null;

export function healthSignOf(error: unknown): HealthSign {
  if (error === undefined || error instanceof FailureBodyError) return "healthy";
  if (!(error instanceof UpstreamError) || error instanceof RateLimitedError) return null;
  return error.retryable ? "failed" : "healthy";
}

/**
 * When the upstream is declared down: most of the latest tries failed, counted over every
 * process sharing the budget (the latest signs live in Redis beside the outage, see
 * outage-scripts.ts), so that more workers do not send more failures before it trips.
 */
export interface OutageRule {
  /** How many of the latest signs are weighed; fewer never trip. */
  readonly latest: number;
  /** How many of them must be failures. */
  readonly failures: number;
  /** Signs older than this are forgotten: an old failure says nothing of now. */
  readonly maxAgeMs: number;
}

/**
 * 16 failures in the latest 20 tries of the last minute. An upstream failing one request in
 * five at random trips it about once in 70 million tries (the binomial tail); one that is down
 * trips it with the first 16 failures of all the workers together, a second or two of their
 * concurrent requests.
 */
export const OUTAGE_RULE: OutageRule = { latest: 20, failures: 16, maxAgeMs: 60_000 };
