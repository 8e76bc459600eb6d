import { RateLimitedError, UpstreamError } from "./upstream-errors.js";

/**
 * One request's retries, counted by what failed: at most `maxRetries` after failures a retry may
 * cure, at most `rateLimitRetries` after 429s (each waits out the pause the answer asked of the
 * budget), and never more than the larger of the two in all. With the two equal, as a run has
 * them, a 429 is one more retryable failure; a command that tries everything else once may still
 * wait out a rate limit.
 */
export class RequestRetries {
  /** The most retries of the request, whatever failed. */
  readonly total: number;
  readonly #caps: { readonly rateLimited: number; readonly other: number };
  readonly #spent = { rateLimited: 0, other: 0 };

  constructor(maxRetries: number, rateLimitRetries: number) {
    this.total = Math.max(maxRetries, rateLimitRetries);
    this.#caps = { rateLimited: rateLimitRetries, other: maxRetries };
  }

  /** Whether the failure `error` is retried; yes spends a retry of its kind. */
  spend(error: unknown): boolean {
    if (!(error instanceof UpstreamError) || !error.retryable) return false;
    const kind = error instanceof RateLimitedError ? "rateLimited" : "other";
    if (this.#spent[kind] >= this.#caps[kind]) return false;
    this.#spent[kind] += 1;
    return true;
  }
}
