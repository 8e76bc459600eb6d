import { NOW_TEXT, RedisScript } from "./budget-scripts.js";

/**
 * The upstream's outage, shared by every process of the budget (its KEYS[1] below): a hash that
 * exists while the upstream is declared down, with `since`, `probe_at` (when the next probe may
 * go), `backoff` (the wait before that probe), `probes` (failed so far), `problem` (what the
 * failures were), `last_probe_at`. KEYS[2] is the probe's lease: one probe at a time, from any
 * process; KEYS[3] the list of the latest health signs (RELEASE_TEXT), emptied as the outage
 * begins and ends. Times are the scripts' ms (NOW_TEXT), as the budget's. The hash lives KEEP_MS
 * past the last process that waited for the outage's end (each asks every second): an outage
 * every worker stopped waiting for (all stopped) is not reported for ever.
 */
const KEEP_MS = 300_000;

/**
 * Declares the upstream down, unless it already is. ARGV: 1 = wait before the first probe (ms),
 * 2 = problem, 3 = now. Returns {1, since} when this call declared it, {0, since} when it was.
 */
const DECLARE_TEXT = `${NOW_TEXT}local since = redis.call('HGET', KEYS[1], 'since')
if since then return {0, tonumber(since)} end
redis.call('DEL', KEYS[3])
redis.call('HSET', KEYS[1], 'since', now, 'probe_at', now + tonumber(ARGV[1]),
  'backoff', ARGV[1], 'probes', 0, 'problem', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ${KEEP_MS})
return {1, now}
`;

/**
 * Whether the caller may probe now. ARGV: 1 = the probe's lease (ms), 2 = now. Returns {0, 0}
 * when the upstream is not down, {1, ms} to ask again in ms, {2, 0}: probe (the lease is taken).
 */
const CLAIM_TEXT = `${NOW_TEXT}local at = redis.call('HGET', KEYS[1], 'probe_at')
if not at then return {0, 0} end
redis.call('PEXPIRE', KEYS[1], ${KEEP_MS})
if tonumber(at) > now then return {1, tonumber(at) - now} end
if not redis.call('SET', KEYS[2], '1', 'NX', 'PX', tonumber(ARGV[1])) then return {1, 1000} end
return {2, 0}
`;

/**
 * The probe failed: the next one waits twice as long as this one did, up to a ceiling. ARGV:
 * 1 = ceiling (ms), 2 = problem, 3 = a factor of the wait in [0.75, 1.25] (so that a ceiling
 * reached is not kept in step), 4 = now. Returns when the next probe may go.
 */
const PROBE_FAILED_TEXT = `${NOW_TEXT}if redis.call('EXISTS', KEYS[1]) == 0 then
  redis.call('DEL', KEYS[2])
  return 0
end
local backoff = math.min(tonumber(redis.call('HGET', KEYS[1], 'backoff')) * 2, tonumber(ARGV[1]))
local at = now + math.floor(backoff * tonumber(ARGV[3]))
redis.call('HSET', KEYS[1], 'probe_at', at, 'backoff', backoff, 'problem', ARGV[2],
  'last_probe_at', now)
redis.call('HINCRBY', KEYS[1], 'probes', 1)
redis.call('DEL', KEYS[2])
return at
`;

/**
 * The upstream answered: it is up. ARGV: 1 = now. Returns {since, failed probes} of the outage
 * ended, or nil when none was declared.
 */
const UP_TEXT = `${NOW_TEXT}local since = redis.call('HGET', KEYS[1], 'since')
local probes = redis.call('HGET', KEYS[1], 'probes')
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3])
if not since then return nil end
return {tonumber(since), tonumber(probes)}
`;

/**
 * Frees a request's slot and notes what its try said of the upstream's health in the list of latest signs
 * every process shares (see OutageRule): a list of the latest signs, "h" or "f" and the time.
 * While the upstream is declared down nothing is noted (the failures of requests in flight say
 * nothing new), and the list is emptied when it trips, so the outage it declares starts afresh.
 * KEYS: 1 = the budget's leases, 2 = the latest signs, 3 = the outage's hash. ARGV: 1 = the lease's
 * token, 2 = "h", "f" or "" (nothing to note), 3 = how many signs are counted, 4 = failures, 5 = max age (ms),
 * 6 = now. Returns 1 when this failure tripped the rule: the caller declares the outage.
 */
const RELEASE_TEXT = `${NOW_TEXT}redis.call('ZREM', KEYS[1], ARGV[1])
if ARGV[2] == '' or redis.call('EXISTS', KEYS[3]) == 1 then return 0 end
local maxAge = tonumber(ARGV[5])
redis.call('LPUSH', KEYS[2], ARGV[2] .. now)
redis.call('LTRIM', KEYS[2], 0, tonumber(ARGV[3]) - 1)
redis.call('PEXPIRE', KEYS[2], maxAge)
if ARGV[2] ~= 'f' then return 0 end
local failed = 0
for _, sign in ipairs(redis.call('LRANGE', KEYS[2], 0, -1)) do
  if string.sub(sign, 1, 1) == 'f' and now - tonumber(string.sub(sign, 2)) <= maxAge then
    failed = failed + 1
  end
end
if failed < tonumber(ARGV[4]) then return 0 end
redis.call('DEL', KEYS[2])
return 1
`;

export const RELEASE_NOTING_SCRIPT = new RedisScript(RELEASE_TEXT);
export const DECLARE_DOWN_SCRIPT = new RedisScript(DECLARE_TEXT);
export const CLAIM_PROBE_SCRIPT = new RedisScript(CLAIM_TEXT);
export const PROBE_FAILED_SCRIPT = new RedisScript(PROBE_FAILED_TEXT);
export const UP_SCRIPT = new RedisScript(UP_TEXT);
