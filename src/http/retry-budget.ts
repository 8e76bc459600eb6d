import { setTimeout as sleep } from "node:timers/promises";

/**
 * What retries may cost a struggling upstream: each retry spends `retryCost` tokens, each answer
 * returns `successRefund`, and `refillPerSecond` come back with time (so that a lone request is
 * never stuck); the budget holds at most `capacity`. The AWS SDK's retry quota works so (a retry
 * costs 5, a success refunds 1, 500 at most), and Google's client-side throttling to the same
 * end: retries are extra load exactly when the upstream can least carry it.
 */
export interface RetryBudgetRule {
  readonly capacity: number;
  readonly retryCost: number;
  readonly successRefund: number;
  readonly refillPerSecond: number;
}

/**
 * Retries of a process add at most half of its answered requests, plus 10 at once and one every
 * 2 s: an upstream failing one try in five at random needs one retry per four answers (1.25
 * tries a request), well within; one failing most of them sees the extra load capped, the
 * retries waiting for tokens (and, once it is declared down, for its return).
 */
export const RETRY_BUDGET: RetryBudgetRule = {
  capacity: 20,
  retryCost: 2,
  successRefund: 1,
  refillPerSecond: 1,
};

/** The longest a retry sleeps before looking at the budget again. */
const POLL_MS = 100;

/** A process's retry tokens: a retry waits for its cost rather than add load the budget lacks. */
export class RetryBudget {
  readonly #rule: RetryBudgetRule;
  readonly #now: () => number;
  #tokens: number;
  #at: number;
  /** Retries that had to wait for tokens, for /metrics. */
  waited = 0;

  constructor(rule: RetryBudgetRule = RETRY_BUDGET, now: () => number = Date.now) {
    this.#rule = rule;
    this.#now = now;
    this.#tokens = rule.capacity;
    this.#at = now();
  }

  /** An answered request: its refund. */
  answered(): void {
    this.#add(this.#rule.successRefund);
  }

  /** Takes a retry's cost, or false (nothing taken) when the budget lacks it. */
  tryTake(): boolean {
    this.#add(0);
    if (this.#tokens < this.#rule.retryCost) return false;
    this.#tokens -= this.#rule.retryCost;
    return true;
  }

  /** Waits until a retry's cost is there, and takes it. */
  async take(signal?: AbortSignal): Promise<void> {
    if (this.tryTake()) return;
    this.waited += 1;
    while (!this.tryTake()) await sleep(POLL_MS, undefined, { signal });
  }

  #add(tokens: number): void {
    const now = this.#now();
    const byTime = ((now - this.#at) / 1000) * this.#rule.refillPerSecond;
    this.#at = now;
    this.#tokens = Math.min(this.#rule.capacity, this.#tokens + byTime + tokens);
  }
}
