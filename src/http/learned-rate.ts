import type { Redis } from "ioredis";
import {
  AUTO_BACKOFF_FACTOR,
  AUTO_MIN_RATE,
  type AutoRate,
  type CurrentRate,
  LEARNED_RATE_TTL_MS,
  type ProbePace,
  type RateChange,
  type RateSource,
} from "./auto-rate.js";
import {
  RAISE_SCRIPT,
  type RedisScript,
  SET_LIMIT_SCRIPT,
  SLOW_DOWN_SCRIPT,
} from "./budget-scripts.js";

export interface LearnedRateOptions {
  /** With "auto", its bounds; null: a fixed rate, which nothing changes. */
  readonly auto: AutoRate | null;
  /** The configured rate, or with "auto" the rate until one is learned. */
  readonly rate: number;
  readonly probe: ProbePace;
  /** The rate's hash and the demand's key. */
  readonly keys: readonly [string, string];
  readonly redis: Redis;
  /** Runs a budget script on the budget's clock. */
  readonly run: (
    script: RedisScript,
    keys: readonly string[],
    args: readonly (string | number)[],
  ) => Promise<unknown>;
}

const LEARNED_SOURCES: readonly RateSource[] = ["start", "limit", "probe", "backoff", "ceiling"];

/**
 * The rate of requests_per_second "auto", kept in Redis, so that what one process learns of the
 * upstream's limit paces every process's next request.
 */
export class LearnedRate {
  readonly #options: LearnedRateOptions;

  constructor(options: LearnedRateOptions) {
    this.#options = options;
  }

  /** The upstream stated its limit: it becomes the rate, up to the ceiling, and probing stops. */
  async setLimit(requestsPerSecond: number): Promise<RateChange | null> {
    const { auto, keys, rate, run } = this.#options;
    if (!auto) return null;
    return rateChange(
      await run(
        SET_LIMIT_SCRIPT,
        [keys[0]],
        [requestsPerSecond, auto.max ?? 0, rate, LEARNED_RATE_TTL_MS],
      ),
    );
  }

  /**
   * A request granted at `grantedAt` was refused with 429 and no stated limit: the rate is
   * lowered (AUTO_BACKOFF_FACTOR, not below the last rate that held), once for all the 429s of
   * requests granted before the last decrease.
   */
  async slowDown(grantedAt: number): Promise<RateChange | null> {
    const { auto, keys, rate, run } = this.#options;
    if (!auto) return null;
    return rateChange(
      await run(
        SLOW_DOWN_SCRIPT,
        [keys[0]],
        [rate, AUTO_MIN_RATE, AUTO_BACKOFF_FACTOR, grantedAt, LEARNED_RATE_TTL_MS],
      ),
    );
  }

  /**
   * A request granted at `grantedAt` succeeded with no stated limit: the rate is raised when it
   * has held a step with requests waiting for it (see RAISE_TEXT), never past the ceiling.
   */
  async speedUp(grantedAt: number): Promise<RateChange | null> {
    const { auto, keys, rate, run, probe } = this.#options;
    if (!auto) return null;
    return rateChange(
      await run(
        RAISE_SCRIPT,
        [keys[0], keys[1]],
        [
          rate,
          auto.max ?? 0,
          grantedAt,
          probe.stepMs,
          probe.holdMs,
          LEARNED_RATE_TTL_MS,
          probe.holdRequests,
          probe.longestHoldMs,
        ],
      ),
    );
  }

  /** The rate in force: the configured one, or with "auto" the learned one. */
  async current(): Promise<CurrentRate> {
    const { auto, keys, rate, redis } = this.#options;
    if (!auto) return { requestsPerSecond: rate, source: "config" };
    const [learned, source, refused] = await redis.hmget(keys[0], "rate", "source", "refused");
    if (learned === null) return { requestsPerSecond: rate, source: "start" };
    const ceiling = auto.max;
    // As the budget paces: a rate learned above this process's ceiling is held at it.
    const capped = ceiling !== null && Number(learned) > ceiling;
    return {
      requestsPerSecond: capped ? ceiling : Number(learned),
      source: capped ? "ceiling" : (LEARNED_SOURCES.find((known) => known === source) ?? "probe"),
      ...(refused === null ? {} : { refusedAt: Number(refused) }),
    };
  }
}

/** A script's {from, to}, or null when it left the rate as it was. */
function rateChange(result: unknown): RateChange | null {
  if (!Array.isArray(result)) return null;
  const [from, to] = result as [string, string];
  return { from: Number(from), to: Number(to) };
}
