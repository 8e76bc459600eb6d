import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RateLimitWaitTooLongError } from "../../src/errors.js";
import { AUTO_MIN_RATE, LEARNED_RATE_TTL_MS } from "../../src/http/auto-rate.js";
import { WINDOW_TEXT } from "../../src/http/budget-scripts.js";
import {
  type Lease,
  RequestBudget,
  type RequestBudgetOptions,
  sustainedRequestsPerSecond,
  WINDOW_MARGIN_MS,
} from "../../src/http/request-budget.js";
import { deleteKeysWithPrefix, REDIS_URL, uniquePrefix } from "../helpers/redis.js";

const prefix = uniquePrefix("budget");
const request = { operation: "test.op", method: "GET", path: "/x" };
let redis: Redis;

beforeAll(() => {
  redis = new Redis(REDIS_URL);
});

afterAll(async () => {
  redis.disconnect();
  await deleteKeysWithPrefix(prefix);
});

/** A request granted after every decrease so far, so its 429 counts. */
const grantedAfterEveryDecrease: Lease = {
  grantedAt: Number.MAX_SAFE_INTEGER,
  release: () => Promise.resolve(),
};

function budget(overrides: Partial<RequestBudgetOptions> = {}): RequestBudget {
  return new RequestBudget({
    redis,
    keyPrefix: prefix,
    apiUrl: "http://upstream.test",
    apiKey: "budget-key",
    requestsPerSecond: 10,
    maxConcurrency: 100,
    leaseMs: 5_000,
    maxPauseMs: 10_000,
    ...overrides,
  });
}

describe("RequestBudget", () => {
  it("lets at most R requests start in any one-second window, across budgets sharing a key", async () => {
    const scope = { apiKey: "rate-key" };
    const [a, b] = [budget(scope), budget(scope)];
    const started: number[] = [];
    const take = async (shared: RequestBudget) => {
      const lease = await shared.acquire(request);
      started.push(Date.now());
      await lease.release();
    };
    const t0 = Date.now();
    await Promise.all(Array.from({ length: 30 }, (_, i) => take(i % 2 ? a : b)));
    started.sort((x, y) => x - y);
    for (const [i, t] of started.entries()) {
      expect(
        started.filter((s) => s >= t && s < t + 1000).length,
        `window from request ${i}`,
      ).toBeLessThanOrEqual(10);
    }
    // 30 requests at 10/s take two full windows after the first burst.
    expect(Date.now() - t0).toBeGreaterThanOrEqual(2000);
    expect(Date.now() - t0).toBeLessThan(4000);
  });

  it("keeps at most C requests in flight across budgets", async () => {
    const scope = { apiKey: "concurrency-key", requestsPerSecond: 1000, maxConcurrency: 2 };
    const [a, b] = [budget(scope), budget(scope)];
    let inFlight = 0;
    let peak = 0;
    await Promise.all(
      Array.from({ length: 8 }, async (_, i) => {
        const lease = await (i % 2 ? a : b).acquire(request);
        inFlight += 1;
        peak = Math.max(peak, inFlight);
        await new Promise((resolve) => setTimeout(resolve, 50));
        inFlight -= 1;
        await lease.release();
      }),
    );
    expect(peak).toBe(2);
  });

  it("frees the slot of a holder that never released it once its lease expires", async () => {
    const scope = { apiKey: "lease-key", maxConcurrency: 1, leaseMs: 300 };
    await budget(scope).acquire(request);
    const t0 = Date.now();
    await budget(scope).acquire(request);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(250);
  });

  it("makes every budget sharing the key wait out a pause", async () => {
    const scope = { apiKey: "pause-key" };
    await budget(scope).pause(800);
    const t0 = Date.now();
    await (await budget(scope).acquire(request)).release();
    expect(Date.now() - t0).toBeGreaterThanOrEqual(750);
  });

  it("never shortens a pause", async () => {
    const scope = { apiKey: "extend-key" };
    await budget(scope).pause(900);
    await budget(scope).pause(100);
    const t0 = Date.now();
    await (await budget(scope).acquire(request)).release();
    expect(Date.now() - t0).toBeGreaterThanOrEqual(800);
  });

  it("refuses to wait out a pause longer than the cap", async () => {
    const scope = { apiKey: "cap-key", maxPauseMs: 1000 };
    await budget(scope).pause(5000);
    await expect(budget(scope).acquire(request)).rejects.toBeInstanceOf(RateLimitWaitTooLongError);
  });

  it("stops waiting when the caller aborts", async () => {
    const scope = { apiKey: "abort-key" };
    await budget(scope).pause(5000);
    const t0 = Date.now();
    await expect(budget(scope).acquire(request, AbortSignal.timeout(100))).rejects.toThrow();
    expect(Date.now() - t0).toBeLessThan(1000);
  });

  it("with auto, paces every budget sharing the key at a limit one of them was told", async () => {
    const scope = { apiKey: "auto-limit-key", requestsPerSecond: "auto" as const };
    const [a, b] = [budget(scope), budget(scope)];
    expect(await b.currentRate()).toEqual({ requestsPerSecond: 2, source: "start" });
    expect(await a.setLimit(20)).toEqual({ from: 2, to: 20 });
    expect(await a.setLimit(20)).toBeNull();
    expect(await b.currentRate()).toEqual({ requestsPerSecond: 20, source: "limit" });
    const ttl = await redis.pttl(`${prefix}budget:${b.scope}:rate`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(LEARNED_RATE_TTL_MS);
  });

  it("with auto, halves the rate once per burst of 429s, down to a floor, unless a limit was stated", async () => {
    const scope = { apiKey: "auto-backoff-key", requestsPerSecond: "auto" as const };
    const [a, b] = [budget(scope), budget(scope)];
    const first = await a.acquire(request);
    const second = await b.acquire(request);
    expect(await a.slowDown(first)).toEqual({ from: 2, to: 1 });
    // Granted before that decrease: its 429 belongs to the same burst.
    expect(await b.slowDown(second)).toBeNull();
    const later = await b.acquire(request);
    expect(await b.slowDown(later)).toEqual({ from: 1, to: 0.5 });
    expect(await a.currentRate()).toEqual({ requestsPerSecond: 0.5, source: "backoff" });
    for (let i = 0; i < 5; i++) await a.slowDown(grantedAfterEveryDecrease);
    expect((await a.currentRate()).requestsPerSecond).toBe(AUTO_MIN_RATE);

    await a.setLimit(5);
    expect(await b.slowDown(grantedAfterEveryDecrease)).toBeNull();
    expect(await b.currentRate()).toEqual({ requestsPerSecond: 5, source: "limit" });
  });

  it("with a fixed rate, ignores what the upstream states", async () => {
    const fixed = budget({ apiKey: "fixed-rate-key", requestsPerSecond: 3 });
    const lease = await fixed.acquire(request);
    expect(await fixed.setLimit(50)).toBeNull();
    expect(await fixed.slowDown(lease)).toBeNull();
    expect(await fixed.currentRate()).toEqual({ requestsPerSecond: 3, source: "config" });
    expect(await redis.exists(`${prefix}budget:${fixed.scope}:rate`)).toBe(0);
  });

  it("keeps budgets of different credentials apart, and no key in Redis names the credential", async () => {
    await budget({ apiKey: "paused-credential" }).pause(5000);
    const t0 = Date.now();
    await (await budget({ apiKey: "other-credential" }).acquire(request)).release();
    expect(Date.now() - t0).toBeLessThan(500);
    const keys = await redis.keys(`${prefix}*`);
    expect(keys.length).toBeGreaterThan(0);
    expect(keys.join(" ")).not.toMatch(/credential|key/);
  });
});

describe("sustainedRequestsPerSecond", () => {
  /** The pace of the window the budget's Lua computes, run by Redis as the budget runs it. */
  async function paceInRedis(rate: number): Promise<number> {
    const script = `local rate, margin = tonumber(ARGV[1]), tonumber(ARGV[2])
${WINDOW_TEXT}
return {perWindow, window}`;
    const [perWindow, windowMs] = (await redis.eval(script, 0, rate, WINDOW_MARGIN_MS)) as [
      number,
      number,
    ];
    return (perWindow * 1000) / windowMs;
  }

  it.each([
    // One request per 1000/R ms, rounded up, and the margin.
    [0.3, 1000 / 3384],
    [0.5, 1000 / 2050],
    // floor(R) requests per 1050 ms: a fraction of a request per second is never sent.
    [1, 1000 / 1050],
    [2, 2000 / 1050],
    [2.5, 2000 / 1050],
    [30, 30_000 / 1050],
  ])("at %s req/s is %f, the pace of the budget's window", async (rate, pace) => {
    expect(sustainedRequestsPerSecond(rate)).toBeCloseTo(pace, 12);
    expect(await paceInRedis(rate)).toBeCloseTo(pace, 12);
  });
});
