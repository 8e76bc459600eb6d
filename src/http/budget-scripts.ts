import { createHash } from "node:crypto";
import type { Redis } from "ioredis";

/**
 * The window of a `rate` (requests per second) with `margin` ms added: `perWindow` sends in any
 * `window` ms. sustainedRequestsPerSecond (request-budget.ts) does the same arithmetic for what a
 * plan takes, and its test runs these lines against it: they change together.
 */
export const WINDOW_TEXT = `
-- Below 1 req/s the window stretches (0.5 req/s: one per 2 s); above, a fraction is dropped,
-- since any second must hold at most R whole requests.
local perWindow = math.max(1, math.floor(rate))
local window = (rate < 1 and math.ceil(1000 / rate) or 1000) + margin
`;

/**
 * Lua run atomically by Redis, on Redis's clock, so every process sharing the budget agrees on
 * time and no two can take the same slot.
 *
 * KEYS: 1 = send log (sorted set: token -> send time), 2 = leases (sorted set: token -> expiry),
 * 3 = pause (epoch ms before which nobody sends), 4 = learned rate (hash: rate, source,
 * lowered_at; see SET_LIMIT_SCRIPT and SLOW_DOWN_SCRIPT).
 * ARGV: 1 = requests per second, 2 = 1 to use the learned rate instead when there is one,
 * 3 = window margin ms, 4 = max concurrent, 5 = lease ms, 6 = token.
 * Sends are spaced at least 1/R apart, so a window's requests do not leave in one burst.
 * Returns {1, now} when granted (now: the grant time on Redis's clock), {0, ms} to wait before
 * asking again (-1: until a lease frees), {2, ms} when paused by the upstream for ms.
 */
const ACQUIRE_TEXT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local pause = tonumber(redis.call('GET', KEYS[3]) or '0')
if pause > now then return {2, pause - now} end
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[4]) then return {0, -1} end
local rate = tonumber(ARGV[1])
if ARGV[2] == '1' then rate = tonumber(redis.call('HGET', KEYS[4], 'rate') or ARGV[1]) end
local margin = tonumber(ARGV[3])
${WINDOW_TEXT}
local spacing = math.floor(1000 / rate)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local newest = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
if newest[2] and now - tonumber(newest[2]) < spacing then
  return {0, spacing - (now - tonumber(newest[2]))}
end
if redis.call('ZCARD', KEYS[1]) >= perWindow then
  local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  return {0, tonumber(oldest[2]) + window - now + 1}
end
redis.call('ZADD', KEYS[1], now, ARGV[6])
redis.call('ZADD', KEYS[2], now + tonumber(ARGV[5]), ARGV[6])
redis.call('PEXPIRE', KEYS[1], window * 2)
redis.call('PEXPIRE', KEYS[2], tonumber(ARGV[5]) * 2)
return {1, now}
`;

/** KEYS: 1 = pause. ARGV: 1 = ms from now. Only ever extends a pause, never shortens one. */
const PAUSE_TEXT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local untilMs = now + tonumber(ARGV[1])
local current = tonumber(redis.call('GET', KEYS[1]) or '0')
if untilMs > current then
  redis.call('SET', KEYS[1], untilMs, 'PX', tonumber(ARGV[1]) + 1000)
end
return untilMs
`;

/**
 * The upstream stated its limit. KEYS: 1 = learned rate. ARGV: 1 = requests per second, 2 = TTL
 * ms. Returns the rate it replaces (nil when none was learned).
 */
const SET_LIMIT_TEXT = `
local previous = redis.call('HGET', KEYS[1], 'rate')
redis.call('HSET', KEYS[1], 'rate', ARGV[1], 'source', 'limit')
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]))
return previous
`;

/**
 * A 429 that did not state the limit: multiplicative decrease of the learned rate.
 * KEYS: 1 = learned rate. ARGV: 1 = rate when none is learned, 2 = least rate, 3 = factor,
 * 4 = when the refused request was granted (Redis ms), 5 = TTL ms.
 * Returns {from, to} as strings (Redis would truncate Lua numbers), or nil when unchanged.
 */
const SLOW_DOWN_TEXT = `
-- A stated limit stands: its 429s come from a spent window, which the pause already handles.
if redis.call('HGET', KEYS[1], 'source') == 'limit' then return nil end
-- A request granted before the last decrease tells nothing of the rate since: the 429s of one
-- burst lower the rate once.
local lowered = tonumber(redis.call('HGET', KEYS[1], 'lowered_at') or '-1')
if tonumber(ARGV[4]) <= lowered then return nil end
local rate = tonumber(redis.call('HGET', KEYS[1], 'rate') or ARGV[1])
local lower = math.max(tonumber(ARGV[2]), rate * tonumber(ARGV[3]))
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('HSET', KEYS[1], 'rate', tostring(lower), 'source', 'backoff', 'lowered_at', now)
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[5]))
if lower == rate then return nil end
return {tostring(rate), tostring(lower)}
`;

/**
 * A script sent by its SHA1 (EVALSHA), its text only when Redis does not know it yet: the acquire
 * script runs for every request, and its text is 40 times the size of its hash.
 */
export class RedisScript {
  readonly #text: string;
  readonly #sha: string;

  constructor(text: string) {
    this.#text = text;
    this.#sha = createHash("sha1").update(text).digest("hex");
  }

  async run(redis: Redis, keys: readonly string[], args: readonly (string | number)[]) {
    try {
      return await redis.evalsha(this.#sha, keys.length, ...keys, ...args);
    } catch (error) {
      if (!String((error as Error).message).startsWith("NOSCRIPT")) throw error;
      return redis.eval(this.#text, keys.length, ...keys, ...args);
    }
  }
}

export const ACQUIRE_SCRIPT = new RedisScript(ACQUIRE_TEXT);
export const PAUSE_SCRIPT = new RedisScript(PAUSE_TEXT);
export const SET_LIMIT_SCRIPT = new RedisScript(SET_LIMIT_TEXT);
export const SLOW_DOWN_SCRIPT = new RedisScript(SLOW_DOWN_TEXT);
