/**
 * "auto": where probing starts, and the most it may reach (null: no ceiling but the upstream's).
 * `requests_per_second: "auto"` is `{ start: AUTO_START_RATE, max: null }`.
 */
export interface AutoRate {
  readonly start: number;
  readonly max: number | null;
}

/** `requests_per_second`: a fixed rate, or "auto", learned as the client goes (AutoRate). */
export type RequestRate = number | AutoRate;

/** `requests_per_second` as the config file writes it. */
export type RequestRateSetting =
  number | "auto" | { readonly auto: { readonly start?: number; readonly max?: number } };

/**
 * The setting read: "auto" alone is "auto" from AUTO_START_RATE with no ceiling; a ceiling under
 * AUTO_START_RATE is where it starts, unless told otherwise.
 */
export function requestRate(setting: RequestRateSetting): RequestRate {
  if (typeof setting === "number") return setting;
  if (setting === "auto") return { start: AUTO_START_RATE, max: null };
  const max = setting.auto.max ?? null;
  return { start: setting.auto.start ?? Math.min(AUTO_START_RATE, max ?? AUTO_START_RATE), max };
}

/**
 * Where "auto" starts. The upstream's limits are per second and per plan, and 2 req/s is a
 * reported plan (docs/upstream.md): the one rate known to be safe.
 */
export const AUTO_START_RATE = 2;

/**
 * Each 429 the upstream sends without stating its limit multiplies the rate by this
 * (multiplicative decrease), though never below the last rate that held (see PROBE_STEP_MS).
 * 0.7 as CUBIC and the AWS SDKs' adaptive mode: against a fixed limit, a rate one request above it
 * may earn its first 429 only when its sends line up with the upstream's seconds (once in some 20
 * s at 13 req/s against 12), and halving then would cost far more than the overshoot did.
 */
export const AUTO_BACKOFF_FACTOR = 0.7;

/** The back-off stops here (one request every 10 s): a 429 may come from another client's use. */
export const AUTO_MIN_RATE = 0.1;

/**
 * How long a rate must hold before probing raises it: answers that succeeded at it, requests that
 * waited for it (the rate, not the upstream or the concurrency, was what held them back), and no
 * 429 for this long. Two of the upstream's per-second windows, so a 429 the rate earns has come
 * back before the next raise.
 */
export const PROBE_STEP_MS = 2_000;

/**
 * How long probing holds just under the lowest rate that earned a 429 before trying that rate
 * again: this long, and this many requests at the rate held, whichever takes longer. A 429 or two
 * (and the pause they ask for) per hold is what finding a raised limit costs: under 0.5 % of the
 * requests, where the rate-limited alert fires at 1 %.
 */
export const PROBE_HOLD_MS = 60_000;
export const PROBE_HOLD_REQUESTS = 1_000;
/**
 * The longest hold: 1,000 requests at the least rate take hours, and a short storm of 429s must
 * not leave the rate there that long.
 */
export const PROBE_LONGEST_HOLD_MS = 10 * 60_000;

/** How probing paces itself: the PROBE_ constants, shorter in tests. */
export interface ProbePace {
  readonly stepMs: number;
  readonly holdMs: number;
  readonly holdRequests: number;
  readonly longestHoldMs: number;
}

export const PROBE_PACE: ProbePace = {
  stepMs: PROBE_STEP_MS,
  holdMs: PROBE_HOLD_MS,
  holdRequests: PROBE_HOLD_REQUESTS,
  longestHoldMs: PROBE_LONGEST_HOLD_MS,
};

/**
 * How long a learned rate outlives its last confirmation (an answer that stated it, or one that
 * succeeded at it): a restart, or tomorrow's sync, resumes from it instead of from the start.
 */
export const LEARNED_RATE_TTL_MS = 7 * 24 * 60 * 60 * 1000;

/** A change of the shared rate, in requests per second. */
export interface RateChange {
  readonly from: number;
  readonly to: number;
}

/**
 * Where the rate a budget allows now comes from: a fixed `requests_per_second` ("config"); with
 * "auto", the start rate ("start"), the upstream's X-RateLimit-Limit ("limit"), raised by probing
 * ("probe"), lowered by a 429 ("backoff"), or held at `max` ("ceiling").
 */
export type RateSource = "config" | "start" | "limit" | "probe" | "backoff" | "ceiling";

export interface CurrentRate {
  readonly requestsPerSecond: number;
  readonly source: RateSource;
  /** With "auto": the lowest rate that earned a 429 since probing last moved past one. */
  readonly refusedAt?: number;
}

/**
 * Whether a change is more than one step of probing (one request per second, or a tenth of the
 * rate where that is more, and below 1 req/s): the changes worth a log line, where the steps are
 * not.
 */
export function beyondOneStep(change: RateChange): boolean {
  const step = change.from < 1 ? change.from * 0.1 : Math.max(1, change.from * 0.1);
  // A step computed in floating point (0.5 + 0.05) is a step, not a hair more.
  return Math.abs(change.to - change.from) - step > 1e-9;
}

/** "auto", "auto from 1 req/s", "auto up to 10 req/s": how the setting reads back. */
export function describeRate(setting: RequestRateSetting): string {
  const rate = requestRate(setting);
  if (typeof rate === "number") return `${rate} req/s`;
  const from = rate.start === AUTO_START_RATE ? "" : ` from ${rate.start} req/s`;
  const upTo = rate.max === null ? "" : ` up to ${rate.max} req/s`;
  return `auto${from}${upTo}`;
}
