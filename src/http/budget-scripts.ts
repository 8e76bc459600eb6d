/**
 * Lua run atomically by Redis, on Redis's clock, so every process sharing the budget agrees on
 * time and no two can take the same slot.
 *
 * KEYS: 1 = send log (sorted set: token -> send time), 2 = leases (sorted set: token -> expiry),
 * 3 = pause (epoch ms before which nobody sends).
 * ARGV: 1 = requests per window, 2 = window ms, 3 = max concurrent, 4 = lease ms, 5 = token,
 * 6 = spacing ms (the least time between two sends, so a window's requests do not leave in
 * one burst).
 * Returns {1, 0} when granted, {0, ms} to wait before asking again (-1: until a lease frees),
 * {2, ms} when paused by the upstream for ms.
 */
export const ACQUIRE_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local pause = tonumber(redis.call('GET', KEYS[3]) or '0')
if pause > now then return {2, pause - now} end
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[3]) then return {0, -1} end
local window = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local newest = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
if newest[2] and now - tonumber(newest[2]) < tonumber(ARGV[6]) then
  return {0, tonumber(ARGV[6]) - (now - tonumber(newest[2]))}
end
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then
  local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  return {0, tonumber(oldest[2]) + window - now + 1}
end
redis.call('ZADD', KEYS[1], now, ARGV[5])
redis.call('ZADD', KEYS[2], now + tonumber(ARGV[4]), ARGV[5])
redis.call('PEXPIRE', KEYS[1], window * 2)
redis.call('PEXPIRE', KEYS[2], tonumber(ARGV[4]) * 2)
return {1, 0}
`;

/** KEYS: 1 = pause. ARGV: 1 = ms from now. Only ever extends a pause, never shortens one. */
export const PAUSE_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local untilMs = now + tonumber(ARGV[1])
local current = tonumber(redis.call('GET', KEYS[1]) or '0')
if untilMs > current then
  redis.call('SET', KEYS[1], untilMs, 'PX', tonumber(ARGV[1]) + 1000)
end
return untilMs
`;
