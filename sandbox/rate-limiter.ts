import type { SandboxKnobs } from "./interfaces.js";

export interface RateLimitState {
  limit: number;
  remaining: number;
  /** Epoch seconds when the budget next has room. */
  reset: number;
}

type Window = SandboxKnobs["rateLimitWindow"];

/**
 * A budget of `limit` requests per second, like the upstream's per-second plans, counted one of
 * the ways such limits are counted in the wild (the spec says none): per epoch second, over any
 * 1000 ms, or as a token bucket holding `limit` tokens refilled at `limit` a second. Only admitted
 * requests spend it; refused ones are free, so a client that backs off recovers.
 */
export class RateLimiter {
  /** "second": the current epoch second. */
  private second = 0;
  private used = 0;
  /** "sliding": arrival times (ms) of the admitted requests of the last 1000 ms. */
  private admitted: number[] = [];
  /** "bucket": tokens left, as of `filledAt` (ms). */
  private tokens: number | null = null;
  private filledAt = 0;

  /** Spends one request of the budget, or refuses (allowed: false). */
  take(
    limit: number,
    nowMs: number,
    window: Window = "second",
  ): RateLimitState & { allowed: boolean } {
    const state = this.peek(limit, nowMs, window);
    const allowed = state.remaining >= 1;
    if (allowed) {
      if (window === "second") this.used++;
      else if (window === "sliding") this.admitted.push(nowMs);
      else this.tokens = (this.tokens ?? limit) - 1;
    }
    return { allowed, ...this.peek(limit, nowMs, window) };
  }

  /** The budget as it stands, without spending. */
  peek(limit: number, nowMs: number, window: Window = "second"): RateLimitState {
    if (window === "sliding") {
      this.admitted = this.admitted.filter((at) => at > nowMs - 1000);
      const oldest = this.admitted[0] ?? nowMs;
      return {
        limit,
        remaining: Math.max(0, limit - this.admitted.length),
        reset: Math.ceil((oldest + 1000) / 1000),
      };
    }
    if (window === "bucket") {
      const elapsed = Math.max(0, nowMs - this.filledAt);
      this.tokens = Math.min(limit, (this.tokens ?? limit) + (elapsed * limit) / 1000);
      this.filledAt = nowMs;
      const missing = Math.max(0, 1 - this.tokens);
      return {
        limit,
        remaining: Math.floor(this.tokens),
        reset: Math.ceil((nowMs + (missing * 1000) / limit) / 1000),
      };
    }
    const second = Math.floor(nowMs / 1000);
    if (second !== this.second) {
      this.second = second;
      this.used = 0;
    }
    return { limit, remaining: Math.max(0, limit - this.used), reset: this.second + 1 };
  }
}

/**
 * The budget as it stands, on every answer while a limit is set, unless the knob keeps the
 * headers off successes ("on-429") or off every answer.
 */
export function rateLimitHeaders(
  budget: RateLimitState | null,
  mode: SandboxKnobs["rateLimitHeaders"],
): Record<string, number> {
  if (!budget || mode === "none" || mode === "on-429" || mode === "retry-after-only") return {};
  return stated(budget);
}

function stated(budget: RateLimitState): Record<string, number> {
  return {
    "X-RateLimit-Limit": budget.limit,
    "X-RateLimit-Remaining": budget.remaining,
    "X-RateLimit-Reset": budget.reset,
  };
}

/** The headers of a 429, as the knob has them. */
export function tooManyRequestsHeaders(
  budget: RateLimitState,
  mode: SandboxKnobs["rateLimitHeaders"],
  nowMs: number,
): Record<string, number> {
  if (mode === "none") return {};
  if (mode === "reset-only") return { "X-RateLimit-Reset": budget.reset };
  const retryAfter = Math.max(1, Math.ceil(budget.reset - nowMs / 1000));
  if (mode === "retry-after-only") return { "Retry-After": retryAfter };
  return { "Retry-After": retryAfter, ...stated(budget) };
}
