import { Redis } from "ioredis";
import { requestBudget } from "../app-context.js";
import { withTimeout } from "../async/with-timeout.js";
import type { EnvConfig } from "../config/env-schema.js";
import type { EtlConfig } from "../config/etl-config-schema.js";
import { type CurrentRate, type RequestRateSetting, requestRate } from "../http/auto-rate.js";
import { type OutageStanding, outageStanding } from "../http/upstream-outage.js";

/** How long a command waits for Redis's learned rate before it goes without. */
const LEARNED_RATE_WAIT_MS = 2_000;

/** What the workers share of the upstream through Redis: the rate in force, and any outage. */
export interface BudgetReading {
  readonly rate: CurrentRate;
  /** Null while the upstream is not declared down. */
  readonly outage: OutageStanding | null;
}

/**
 * The rate the workers' budget allows now, as they share it through Redis (the fixed rate, or with
 * "auto" the one learned: the start rate while nothing is), and whether they declared the upstream
 * down. Null when Redis does not answer in time, or the upstream is not configured (the budget
 * is per upstream and key) and the rate is "auto".
 */
export async function budgetReading(env: EnvConfig, etl: EtlConfig): Promise<BudgetReading | null> {
  if (!env.MUSIC_API_URL || !env.MUSIC_API_KEY) {
    // No budget to read; a fixed rate is the rate all the same.
    const fixed = etl.requests_per_second;
    return typeof fixed === "number" ? { rate: configuredRate(fixed), outage: null } : null;
  }
  const redis = new Redis(env.REDIS_URL, {
    lazyConnect: true,
    connectTimeout: LEARNED_RATE_WAIT_MS,
    commandTimeout: LEARNED_RATE_WAIT_MS,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  redis.on("error", () => undefined);
  try {
    const upstream = { url: env.MUSIC_API_URL, key: env.MUSIC_API_KEY };
    return await withTimeout(async () => {
      await redis.connect();
      const budget = requestBudget(etl, upstream, redis);
      return {
        rate: await budget.currentRate(),
        outage: await outageStanding(budget),
      };
    }, LEARNED_RATE_WAIT_MS);
  } catch {
    return null;
  } finally {
    redis.disconnect();
  }
}

/** The rate a budget starts from, where nothing learned can be read. */
export function configuredRate(setting: RequestRateSetting): CurrentRate {
  const rate = requestRate(setting);
  return typeof rate === "number"
    ? { requestsPerSecond: rate, source: "config" }
    : { requestsPerSecond: rate.start, source: "start" };
}

/** Why the budget allows the rate it does, in words: "probed: 429s came at 13 req/s". */
export function rateReason(rate: CurrentRate): string {
  const refused =
    rate.refusedAt === undefined ? "" : `; 429s came at ${rate.refusedAt} req/s, it stays under`;
  switch (rate.source) {
    case "config":
      return "requests_per_second, shared by every worker";
    case "start":
      return '"auto" starts here, and probing raises it while answers succeed: less time then';
    case "limit":
      return 'the limit the upstream states, learned by "auto"';
    case "probe":
      return `"auto", raised by probing: the upstream states no limit${refused}`;
    case "backoff":
      return `"auto", lowered by a 429: the upstream states no limit${refused}`;
    case "ceiling":
      return '"auto" held at its max, which neither probing nor a stated limit passes';
  }
}
