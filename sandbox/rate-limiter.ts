export interface RateLimitState {
  limit: number;
  remaining: number;
  /** Epoch seconds of the next second, when the budget refills. */
  reset: number;
}

/**
 * A budget of `limit` requests per epoch second, like the upstream's per-second plans. Only
 * admitted requests spend it; refused ones are free, so a client that backs off recovers.
 */
export class RateLimiter {
  private second = 0;
  private used = 0;

  /** Spends one request of the current second's budget, or refuses (allowed: false). */
  take(limit: number, nowMs: number): RateLimitState & { allowed: boolean } {
    this.roll(nowMs);
    const allowed = this.used < limit;
    if (allowed) this.used++;
    return { allowed, ...this.state(limit) };
  }

  /** The budget as it stands, without spending. */
  peek(limit: number, nowMs: number): RateLimitState {
    this.roll(nowMs);
    return this.state(limit);
  }

  private roll(nowMs: number): void {
    const second = Math.floor(nowMs / 1000);
    if (second !== this.second) {
      this.second = second;
      this.used = 0;
    }
  }

  private state(limit: number): RateLimitState {
    return { limit, remaining: Math.max(0, limit - this.used), reset: this.second + 1 };
  }
}
