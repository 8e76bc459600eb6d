import type { RateChange } from "./auto-rate.js";
import {
  rateLimitLimit,
  rateLimitRemaining,
  rateLimitResetMs,
  type ResponseHeaders,
  retryAfterMs,
} from "./rate-limit-headers.js";
import type { Lease, RequestBudget } from "./request-budget.js";

// What an answer tells the shared request budget. HttpClient heeds every answer through
// heedAnswer; the budget's tests drive it with answers of their own on a clock they step, so the
// rules tested are the ones the client follows.

/** An answer as the budget sees it. */
export interface RateAnswer {
  readonly status: number;
  readonly headers: ResponseHeaders;
}

/** A change of the shared rate an answer made, and why, for the log. */
export interface RateNote {
  readonly change: RateChange;
  readonly message: string;
}

/**
 * Every answer may state the upstream's limit, which sets the budget's rate (with
 * requests_per_second "auto"); a 429 that does not lowers it, and a success raises it once it has
 * held (probing, see RequestBudget.speedUp), when `mayProbe` says this one asks.
 */
async function adjustRate(
  budget: RequestBudget,
  lease: Lease,
  answer: RateAnswer,
  mayProbe: () => boolean,
): Promise<RateNote | null> {
  const limit = rateLimitLimit(answer.headers);
  if (limit !== null) {
    return note(
      await budget.setLimit(limit),
      "request rate set to the upstream's X-RateLimit-Limit",
    );
  }
  if (answer.status === 429) {
    return note(
      await budget.slowDown(lease),
      "429 without X-RateLimit-Limit: request rate lowered",
    );
  }
  if (answer.status >= 200 && answer.status < 300 && mayProbe()) {
    return note(await budget.speedUp(lease), "requests succeed at the rate: request rate raised");
  }
  return null;
}

function note(change: RateChange | null, message: string): RateNote | null {
  return change ? { change, message } : null;
}

/** What the client makes of an answer's rate headers: the shared rate's change, and the pause. */
export interface Heeded {
  readonly note: RateNote | null;
  /** The wait the answer asked of every process, or null; paused only when within the limit. */
  readonly pauseMs: number | null;
}

/** How the client heeds answers: the limits of what it waits, and which successes probe. */
export interface HeedOptions {
  /** When a 429 names no wait. */
  readonly fallbackPauseMs: number;
  /** Longer waits are not paused: the caller fails the request instead (429) or goes on (2xx). */
  readonly maxPauseMs: number;
  readonly mayProbe: () => boolean;
}

/**
 * Every answer's word on the rate, heeded in one place: the shared rate adjusted (adjustRate),
 * and the pause it asks of every process taken on the shared budget, before the lease is freed,
 * so that no process sends into a window the upstream said is spent.
 */
export async function heedAnswer(
  budget: RequestBudget,
  lease: Lease,
  answer: RateAnswer,
  nowMs: number,
  options: HeedOptions,
): Promise<Heeded> {
  const note = await adjustRate(budget, lease, answer, options.mayProbe);
  const pauseMs = requestedPauseMs(answer, nowMs, options.fallbackPauseMs);
  if (pauseMs !== null && pauseMs <= options.maxPauseMs) await budget.pause(pauseMs);
  return { note, pauseMs };
}

/**
 * The wait an answer asks for: a 429's Retry-After, else its X-RateLimit-Reset, else
 * `fallbackMs`; a success that says its window is spent (X-RateLimit-Remaining 0), the time to
 * the window's reset, so that everyone waits instead of earning a 429; else null.
 */
function requestedPauseMs(answer: RateAnswer, nowMs: number, fallbackMs: number): number | null {
  const { status, headers } = answer;
  if (status === 429) {
    return retryAfterMs(headers, nowMs) ?? rateLimitResetMs(headers, nowMs) ?? fallbackMs;
  }
  if (status < 200 || status >= 300 || rateLimitRemaining(headers) !== 0) return null;
  const waitMs = rateLimitResetMs(headers, nowMs);
  return waitMs !== null && waitMs > 0 ? waitMs : null;
}

/**
 * How often one process asks the budget whether the rate may rise: one success a quarter of a
 * second is plenty (a raise needs the rate to have held PROBE_STEP_MS), and spares Redis a script
 * per answer.
 */
export const PROBE_ASK_MS = 250;

/** Which successes of one process ask the budget to raise the rate: one per PROBE_ASK_MS. */
export class ProbeAsks {
  readonly #now: () => number;
  #askedAt = Number.NEGATIVE_INFINITY;

  /** `now`: a monotonic clock in ms (a test's steps). */
  constructor(now: () => number = () => performance.now()) {
    this.#now = now;
  }

  due(): boolean {
    const now = this.#now();
    if (now - this.#askedAt < PROBE_ASK_MS) return false;
    this.#askedAt = now;
    return true;
  }
}
