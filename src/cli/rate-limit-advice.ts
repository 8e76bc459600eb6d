import { type CurrentRate, describeRate, type RequestRateSetting } from "../http/auto-rate.js";
import type { RateLimitedError } from "../http/upstream-errors.js";
import { rateReason } from "./budget-reading.js";

/**
 * Requests the upstream refused with a 429 again after the wait it asked for, and what to do: the
 * rate they were sent at (requests_per_second), what the upstream answered, and the setting that
 * ends it, in the config file at `configPath`.
 */
export function rateLimitAdvice(
  setting: RequestRateSetting,
  used: CurrentRate,
  answer: RateLimitedError,
  configPath: string,
): string {
  const stated = answer.limit === null ? "no limit stated" : `limit ${answer.limit} req/s`;
  const answered = `the upstream answered HTTP 429, ${stated}, retry in ${answer.waitMs} ms`;
  const at = `refused by the rate limit, again after the wait it asked for: at requests_per_second ${describeRate(setting)}`;
  if (typeof setting === "number") {
    const lower = answer.limit === null ? "or lower it" : `or to at most ${answer.limit}`;
    return `${at} ${answered}; set requests_per_second to "auto" in ${configPath}, ${lower}`;
  }
  // "auto" learns from every 429 already, and the next command starts from what it learned.
  const now = `${used.requestsPerSecond} req/s, ${rateReason(used)}`;
  return `${at} (${now}) ${answered}; "auto" goes on from the rate it learned: run check again`;
}
