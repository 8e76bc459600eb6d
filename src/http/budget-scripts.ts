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
 * "now" in every script: the last ARGV, the caller's clock in epoch ms, or when it is 0 Redis's
 * own (TIME), which every process sharing the budget agrees on. Tests step a clock of their own
 * (RequestBudgetOptions.clock), so a rule of the budget is tested by moving time, not waiting it.
 */
export const NOW_TEXT = `
local now = tonumber(ARGV[#ARGV])
if now == 0 then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
`;

/**
 * The TTL of the send log and the leases is only their collection once nobody uses the budget
 * (each acquire drops what is out of the window by its scores): a minute at least, so a budget
 * whose clock is not Redis's never finds them emptied by Redis's.
 */
const KEEP_MS = 60_000;

/**
 * Lua run atomically by Redis, on one clock (NOW_TEXT), so every process sharing the budget
 * agrees on time and no two can take the same slot.
 *
 * KEYS: 1 = send log (sorted set: token -> send time), 2 = leases (sorted set: token -> expiry),
 * 3 = pause (epoch ms before which nobody sends), 4 = learned rate (hash, see LEARNED_TEXT),
 * 5 = demand (when a request last waited for a full window), 6 = outage (outage-scripts.ts).
 * ARGV: 1 = requests per second, 2 = 1 to use the learned rate instead when there is one (and
 * note the demand), 3 = window margin ms, 4 = max concurrent, 5 = lease ms, 6 = token,
 * 7 = ceiling of the learned rate (0: none), 8 = 1 for the outage's probe, which alone is sent
 * while the upstream is declared down, 9 = now (NOW_TEXT).
 * Sends are spaced at least 1/R apart, so a window's requests do not leave in one burst.
 * Returns {1, now} when granted (now: the grant time on the scripts' clock), {0, ms} to wait before
 * asking again (-1: until a lease frees), {2, ms} when paused by the upstream for ms, {3, 0} when
 * the upstream is declared down.
 */
const ACQUIRE_TEXT = `${NOW_TEXT}if ARGV[8] ~= '1' and redis.call('EXISTS', KEYS[6]) == 1 then return {3, 0} end
local pause = tonumber(redis.call('GET', KEYS[3]) or '0')
if pause > now then return {2, pause - now} end
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[4]) then return {0, -1} end
local rate = tonumber(ARGV[1])
if ARGV[2] == '1' then
  rate = tonumber(redis.call('HGET', KEYS[4], 'rate') or ARGV[1])
  -- Learned under a higher ceiling (or none) by another process, or before max was lowered.
  local ceiling = tonumber(ARGV[7])
  if ceiling > 0 and rate > ceiling then rate = ceiling end
end
local margin = tonumber(ARGV[3])
${WINDOW_TEXT}
local spacing = math.floor(1000 / rate)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local newest = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
local wait = 0
if newest[2] and now - tonumber(newest[2]) < spacing then
  wait = spacing - (now - tonumber(newest[2]))
elseif redis.call('ZCARD', KEYS[1]) >= perWindow then
  local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  wait = tonumber(oldest[2]) + window - now + 1
end
if wait > 0 then
  -- A full window holds this request back: the rate, not the upstream, the concurrency or two
  -- callers asking at once, is what limits the sends, and probing may raise it.
  if ARGV[2] == '1' and redis.call('ZCARD', KEYS[1]) >= perWindow then
    redis.call('SET', KEYS[5], now, 'PX', 60000)
  end
  return {0, wait}
end
redis.call('ZADD', KEYS[1], now, ARGV[6])
redis.call('ZADD', KEYS[2], now + tonumber(ARGV[5]), ARGV[6])
redis.call('PEXPIRE', KEYS[1], math.max(window * 2, ${KEEP_MS}))
redis.call('PEXPIRE', KEYS[2], math.max(tonumber(ARGV[5]) * 2, ${KEEP_MS}))
return {1, now}
`;

/**
 * KEYS: 1 = pause. ARGV: 1 = ms from now, 2 = now (NOW_TEXT). Only ever extends a pause, never
 * shortens one.
 */
const PAUSE_TEXT = `${NOW_TEXT}local untilMs = now + tonumber(ARGV[1])
local current = tonumber(redis.call('GET', KEYS[1]) or '0')
if untilMs > current then
  redis.call('SET', KEYS[1], untilMs, 'PX', math.max(tonumber(ARGV[1]) + 1000, ${KEEP_MS}))
end
return untilMs
`;

/**
 * The learned rate (KEYS[1] of the scripts below) is a hash: `rate` (requests per second),
 * `source` ("limit", "probe", "backoff" or "ceiling"; see CurrentRate), `good` (the rate before
 * the last raise, which held), `refused` (the lowest rate that earned a 429 since probing last
 * moved past one), `changed_at`, `lowered_at` and `last_429` (the scripts' ms). Rates of 1 req/s and
 * more move in whole requests: the window takes floor(rate) a second, so a fraction changes
 * nothing. The last ARGV of each is now (NOW_TEXT). Every script returns {from, to} as strings
 * (Redis would truncate Lua numbers), or nil when the rate is unchanged.
 */
const LEARNED_TEXT = `${NOW_TEXT}local function field(name, default)
  return tonumber(redis.call('HGET', KEYS[1], name) or default)
end
local function whole(rate)
  if rate > 1 then return math.floor(rate) end
  return rate
end
`;

/**
 * The upstream stated its limit: it is the rate, up to the ceiling, and probing stops.
 * ARGV: 1 = requests per second stated, 2 = ceiling (0: none), 3 = rate when none is learned,
 * 4 = TTL ms.
 */
const SET_LIMIT_TEXT = `${LEARNED_TEXT}
local stated = tonumber(ARGV[1])
local ceiling = tonumber(ARGV[2])
local rate = stated
local source = 'limit'
if ceiling > 0 and rate > ceiling then
  rate = ceiling
  source = 'ceiling'
end
local previous = field('rate', ARGV[3])
redis.call('HSET', KEYS[1], 'rate', tostring(rate), 'source', source, 'changed_at', now)
redis.call('HDEL', KEYS[1], 'refused', 'good')
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[4]))
if previous == rate then return nil end
return {tostring(previous), tostring(rate)}
`;

/**
 * A 429 that did not state the limit: multiplicative decrease, though not below the rate that
 * held before the last raise (the raise earned the 429, so back to where it held), and the rate
 * refused is remembered so probing stays under it. A 429 at the rate that held takes one step off
 * it, the next one a multiple: one request over a fixed limit may earn its first 429 only when
 * its sends line up with the upstream's seconds, long after the rate held, and a limit that moved
 * down earns a second 429 at once.
 * ARGV: 1 = rate when none is learned, 2 = least rate, 3 = factor, 4 = when the refused request
 * was granted (the scripts' ms), 5 = TTL ms.
 */
const SLOW_DOWN_TEXT = `${LEARNED_TEXT}
-- A stated limit stands: its 429s come from a spent window, which the pause already handles.
if redis.call('HGET', KEYS[1], 'source') == 'limit' then return nil end
redis.call('HSET', KEYS[1], 'last_429', now)
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[5]))
-- A request granted before the last decrease tells nothing of the rate since: the 429s of one
-- burst lower the rate once.
if tonumber(ARGV[4]) <= field('lowered_at', '-1') then return nil end
local current = field('rate', ARGV[1])
local good = field('good', '0')
-- The rate the refused request was sent at: granted before the last raise, the one that held.
local rate = current
if good > 0 and tonumber(ARGV[4]) <= field('changed_at', '0') then rate = good end
local lower = rate * tonumber(ARGV[3])
if good > 0 and good < rate then
  if good > lower then lower = good end
else
  if good == rate then
    if rate >= 2 then lower = rate - 1 else lower = rate * 0.9 end
  end
  redis.call('HDEL', KEYS[1], 'good')
end
-- Never up: a rate already under the floor (a start below it) stays where it is.
lower = math.min(current, math.max(tonumber(ARGV[2]), whole(lower)))
redis.call('HSET', KEYS[1], 'rate', tostring(lower), 'source', 'backoff', 'refused',
  tostring(rate), 'lowered_at', now, 'changed_at', now)
if lower == current then return nil end
return {tostring(current), tostring(lower)}
`;

/**
 * An answer succeeded without stating the limit: additive increase once the rate has held a step
 * (ARGV 4) with requests waiting for it and no 429. Below any rate refused yet it rises by half
 * each step (seeking); under the lowest one refused, by half the distance, at least a step, and
 * once a step would reach it, it holds there for ARGV 5 ms or ARGV 7 requests, whichever is
 * longer (but at most ARGV 8 ms), before trying that rate again (a raised limit is found this
 * way: the refused rate holds, and seeking resumes).
 * KEYS: 1 = learned rate, 2 = demand. ARGV: 1 = rate when none is learned, 2 = ceiling (0: none),
 * 3 = when the request that succeeded was granted (the scripts' ms), 4 = step ms, 5 = hold ms,
 * 6 = TTL ms, 7 = hold requests, 8 = longest hold ms.
 */
const RAISE_TEXT = `${LEARNED_TEXT}
local source = redis.call('HGET', KEYS[1], 'source')
if not source then
  -- The start rate holds a step like any other before the first raise: from now.
  redis.call('HSET', KEYS[1], 'rate', ARGV[1], 'source', 'start', 'changed_at', now)
end
-- Every success confirms the rate, a stated one too (an upstream that states it on its 429s
-- alone does so no more once it is kept).
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[6]))
if source == 'limit' then return nil end
local rate = field('rate', ARGV[1])
local ceiling = tonumber(ARGV[2])
if ceiling > 0 and rate >= ceiling then
  if rate == ceiling then return nil end
  -- Learned under a higher ceiling, or before max was lowered: down to this one.
  redis.call('HSET', KEYS[1], 'rate', tostring(ceiling), 'source', 'ceiling', 'changed_at', now)
  return {tostring(rate), tostring(ceiling)}
end
local changed = field('changed_at', '0')
-- Sent before the last change: it says nothing of the rate since.
if tonumber(ARGV[3]) <= changed then return nil end
if now - math.max(changed, field('last_429', '0')) < tonumber(ARGV[4]) then return nil end
-- Nobody waited for the rate since it changed: a higher one would not be used.
if tonumber(redis.call('GET', KEYS[2]) or '0') <= changed then return nil end
local refused = field('refused', '0')
local step = 1
if rate < 1 then step = rate * 0.1 end
local higher
if refused > 0 and rate >= refused then
  -- The rate once refused held: the limit moved up. Seek again.
  refused = 0
end
if refused == 0 then
  higher = whole(math.max(rate * 1.5, rate + step))
else
  higher = whole(rate + math.max(step, (refused - rate) / 2))
  if higher >= refused then
    -- The requests held at a low rate take long: capped at ARGV 8 ms.
    local hold = math.max(tonumber(ARGV[5]), math.min(tonumber(ARGV[7]) * 1000 / rate,
      tonumber(ARGV[8])))
    if now - changed < hold then return nil end
    higher = refused
  end
end
local held = 'probe'
if ceiling > 0 and higher >= ceiling then
  higher = ceiling
  held = 'ceiling'
end
redis.call('HSET', KEYS[1], 'rate', tostring(higher), 'source', held, 'good', tostring(rate),
  'changed_at', now)
if refused == 0 then redis.call('HDEL', KEYS[1], 'refused')
else redis.call('HSET', KEYS[1], 'refused', tostring(refused)) end
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[6]))
return {tostring(rate), tostring(higher)}
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
export const RAISE_SCRIPT = new RedisScript(RAISE_TEXT);
