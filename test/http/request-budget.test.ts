import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RateLimitWaitTooLongError } from "../../src/http/upstream-errors.js";
import {
  AUTO_MIN_RATE,
  type AutoRate,
  LEARNED_RATE_TTL_MS,
  PROBE_PACE,
} from "../../src/http/auto-rate.js";
import { WINDOW_TEXT } from "../../src/http/budget-scripts.js";
import {
  type Lease,
  RequestBudget,
  type RequestBudgetOptions,
  sustainedRequestsPerSecond,
  type Wait,
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

const AUTO: AutoRate = { start: 2, max: null };
/** Probing at its own pace: the clock makes a minute's hold cost nothing. */
const PROBE = PROBE_PACE;

/**
 * The budgets' clock, moved by the tests (epoch ms): what the budget decides is tested by stepping
 * time and counting grants, the same on any machine. Only the tests of waiting itself (acquire)
 * run on Redis's clock.
 */
let now = 1_800_000_000_000;
const clock = () => now;

/** Tries until a slot is granted, moving the clock by every wait the budget asks for. */
async function takeStepping(shared: RequestBudget): Promise<Lease> {
  for (;;) {
    const taken = await shared.tryAcquire(request);
    if ("release" in taken) return taken;
    now += Math.max(1, taken.waitMs);
  }
}

/** A request sent a moment after the last event: granted after it, as on a real clock. */
function sent(shared: RequestBudget): Promise<Lease> {
  now += 1;
  return takeStepping(shared);
}

/** The wait a try meets, which must be one. */
async function refused(shared: RequestBudget): Promise<Wait> {
  const taken = await shared.tryAcquire(request);
  if ("release" in taken) throw new Error(`granted at ${taken.grantedAt}, expected to wait`);
  return taken;
}

/** A request granted after every decrease so far, so its 429 counts. */
const grantedAfterEveryDecrease: Lease = {
  grantedAt: Number.MAX_SAFE_INTEGER,
  release: () => Promise.resolve(false),
};

function budget(overrides: Partial<RequestBudgetOptions> = {}): RequestBudget {
  return new RequestBudget({
    clock,
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
    for (let i = 0; i < 30; i++) {
      const lease = await takeStepping(i % 2 ? a : b);
      started.push(lease.grantedAt);
      await lease.release();
    }
    for (const [i, t] of started.entries()) {
      expect(
        started.filter((s) => s >= t && s < t + 1000).length,
        `window from request ${i}`,
      ).toBeLessThanOrEqual(10);
    }
    // Ten a window of 1,050 ms, spaced 100 ms apart: the 30th starts in the third window.
    expect((started[29] as number) - (started[0] as number)).toBe(2 * 1051 + 900);
  });

  it("keeps at most C requests in flight across budgets", async () => {
    // On Redis's clock: callers of two budgets wait for each other's releases as they come.
    const scope = {
      apiKey: "concurrency-key",
      requestsPerSecond: 1000,
      maxConcurrency: 2,
      clock: undefined,
    };
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

  it("sends a waiter's try for the slot a release frees before Redis has answered the release", async () => {
    // A client of its own whose scripts are seen sent and answered: the acquire runs with 6 keys,
    // the release with 3. Redis runs one connection's commands in order, so the try finds the slot.
    const seen = new Redis(REDIS_URL);
    const events: string[] = [];
    const evalsha = seen.evalsha.bind(seen) as (...args: unknown[]) => Promise<unknown>;
    Object.assign(seen, {
      evalsha: async (...args: unknown[]) => {
        const kind = args[1] === 3 ? "release" : "acquire";
        events.push(`${kind} sent`);
        const reply = await evalsha(...args);
        events.push(`${kind} answered`);
        return reply;
      },
    });
    try {
      const shared = budget({
        apiKey: "handover-key",
        maxConcurrency: 1,
        clock: undefined,
        redis: seen,
      });
      const holder = await shared.acquire(request);
      const waiter = shared.acquire(request);
      // Every slot is this process's: the waiter waits for its release without asking Redis.
      await new Promise((resolve) => setImmediate(resolve));
      expect(events).toEqual(["acquire sent", "acquire answered"]);
      events.length = 0;
      await holder.release();
      await (await waiter).release();
      expect(events.slice(0, 3)).toEqual(["release sent", "acquire sent", "release answered"]);
    } finally {
      seen.disconnect();
    }
  });

  it("frees the slot of a holder that never released it once its lease expires", async () => {
    const scope = { apiKey: "lease-key", maxConcurrency: 1, leaseMs: 300 };
    const held = await takeStepping(budget(scope));
    now += 10;
    // Every slot taken: wait for a release.
    expect(await refused(budget(scope))).toEqual({ waitMs: -1 });
    now = held.grantedAt + 299;
    expect(await refused(budget(scope))).toEqual({ waitMs: -1 });
    now += 1;
    expect("release" in (await budget(scope).tryAcquire(request))).toBe(true);
  });

  it("makes every budget sharing the key wait out a pause", async () => {
    const scope = { apiKey: "pause-key" };
    await budget(scope).pause(800);
    expect(await refused(budget(scope))).toEqual({ waitMs: 800 });
    now += 799;
    expect(await refused(budget(scope))).toEqual({ waitMs: 1 });
    now += 1;
    expect("release" in (await budget(scope).tryAcquire(request))).toBe(true);
  });

  it("never shortens a pause", async () => {
    const scope = { apiKey: "extend-key" };
    await budget(scope).pause(900);
    await budget(scope).pause(100);
    expect(await refused(budget(scope))).toEqual({ waitMs: 900 });
  });

  it("waits out a pause on Redis's clock when none is given", async () => {
    const scope = { apiKey: "redis-clock-key", clock: undefined };
    await budget(scope).pause(300);
    expect(await redis.pttl(`${prefix}budget:${budget(scope).sharedBy}:pause`)).toBeGreaterThan(0);
    // Held back by the pause, then granted: nothing measured, only that it waits and then goes.
    const waited = await budget(scope).tryAcquire(request);
    expect("waitMs" in waited && waited.waitMs > 0 && waited.waitMs <= 300).toBe(true);
    await (await budget(scope).acquire(request)).release();
  });

  it("refuses to wait out a pause longer than the cap", async () => {
    const scope = { apiKey: "cap-key", maxPauseMs: 1000 };
    await budget(scope).pause(5000);
    await expect(budget(scope).acquire(request)).rejects.toBeInstanceOf(RateLimitWaitTooLongError);
  });

  it("stops waiting when the caller aborts", async () => {
    const scope = { apiKey: "abort-key" };
    await budget(scope).pause(5000);
    // The clock stands still, so the pause never ends: only the abort can end the wait.
    await expect(budget(scope).acquire(request, AbortSignal.timeout(100))).rejects.toThrow(
      /aborted/,
    );
  });

  it("with auto, paces every budget sharing the key at a limit one of them was told", async () => {
    const scope = { apiKey: "auto-limit-key", requestsPerSecond: AUTO };
    const [a, b] = [budget(scope), budget(scope)];
    expect(await b.currentRate()).toEqual({ requestsPerSecond: 2, source: "start" });
    expect(await a.setLimit(20)).toEqual({ from: 2, to: 20 });
    expect(await a.setLimit(20)).toBeNull();
    expect(await b.currentRate()).toEqual({ requestsPerSecond: 20, source: "limit" });
    const ttl = await redis.pttl(`${prefix}budget:${b.sharedBy}:rate`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(LEARNED_RATE_TTL_MS);
  });

  it("with auto, lowers the rate once per burst of 429s, down to a floor, unless a limit was stated", async () => {
    const scope = { apiKey: "auto-backoff-key", requestsPerSecond: AUTO };
    const [a, b] = [budget(scope), budget(scope)];
    const first = await sent(a);
    const second = await sent(b);
    expect(await a.slowDown(first)).toEqual({ from: 2, to: 1 });
    // Granted before that decrease: its 429 belongs to the same burst.
    expect(await b.slowDown(second)).toBeNull();
    const later = await sent(b);
    expect(await b.slowDown(later)).toEqual({ from: 1, to: 0.7 });
    expect(await a.currentRate()).toEqual({
      requestsPerSecond: 0.7,
      source: "backoff",
      refusedAt: 1,
    });
    for (let i = 0; i < 10; i++) await a.slowDown(grantedAfterEveryDecrease);
    expect((await a.currentRate()).requestsPerSecond).toBe(AUTO_MIN_RATE);

    await a.setLimit(5);
    expect(await b.slowDown(grantedAfterEveryDecrease)).toBeNull();
    expect(await b.currentRate()).toEqual({ requestsPerSecond: 5, source: "limit" });
  });

  describe("with auto and no stated limit, probing", () => {
    /**
     * Requests that filled a window of the rate (the last of them waited for it: the rate is
     * what held them back), then the rate's step: the lease of the last one, granted at the rate,
     * answered now.
     */
    async function heldAStep(shared: RequestBudget): Promise<Lease> {
      const perWindow = Math.max(1, Math.floor((await shared.currentRate()).requestsPerSecond));
      const leases: Lease[] = [];
      while (leases.length < perWindow + 1) leases.push(await takeStepping(shared));
      for (const lease of leases) await lease.release();
      now += PROBE.stepMs;
      return leases.at(-1) as Lease;
    }

    /** Raises `shared` step after step until it holds; the rates it went through. */
    async function raiseUntilHeld(shared: RequestBudget): Promise<number[]> {
      const rates: number[] = [];
      for (;;) {
        const change = await shared.speedUp(await heldAStep(shared));
        if (!change) return rates;
        rates.push(change.to);
      }
    }

    /** Raises `shared` step after step until it has risen `times`; the rates it went through. */
    async function raisedTimes(shared: RequestBudget, times: number): Promise<number[]> {
      const rates: number[] = [];
      while (rates.length < times) {
        const change = await shared.speedUp(await heldAStep(shared));
        if (change) rates.push(change.to);
      }
      return rates;
    }

    /** From an empty window, ms between the first and the fourth of four grants. */
    async function spanOfFourGrants(shared: RequestBudget): Promise<number> {
      now += 1100;
      const grants: number[] = [];
      for (let i = 0; i < 4; i++) {
        const lease = await takeStepping(shared);
        grants.push(lease.grantedAt);
        await lease.release();
      }
      return (grants[3] as number) - (grants[0] as number);
    }

    const probing = (apiKey: string, requestsPerSecond: AutoRate = AUTO) => ({
      apiKey,
      requestsPerSecond,
      probe: PROBE,
    });

    it("raises the rate by half a step while it holds, back to where it held on a 429, then closes in under the refused rate and holds there", async () => {
      const [a, b] = [budget(probing("probe-key")), budget(probing("probe-key"))];
      // The start rate holds a step from the first answer, like any other.
      expect(await a.speedUp(await heldAStep(a))).toBeNull();
      const seek: number[] = [];
      for (const shared of [a, b, a, b]) {
        const change = await shared.speedUp(await heldAStep(shared));
        if (change) seek.push(change.to);
      }
      // Whole requests above 1 req/s: the window takes floor(rate), a fraction changes nothing.
      expect(seek).toEqual([3, 4, 6, 9]);
      expect(await b.currentRate()).toEqual({ requestsPerSecond: 9, source: "probe" });

      expect(await a.slowDown(await sent(a))).toEqual({ from: 9, to: 6 });
      expect(await b.currentRate()).toEqual({
        requestsPerSecond: 6,
        source: "backoff",
        refusedAt: 9,
      });
      // Half the distance to the refused rate, at least a request, and not onto it.
      expect(await raiseUntilHeld(b)).toEqual([7, 8]);
      expect(await a.currentRate()).toEqual({
        requestsPerSecond: 8,
        source: "probe",
        refusedAt: 9,
      });

      // Held under it for the hold: 1,000 requests at 8 req/s (125 s), longer than PROBE_HOLD_MS,
      // then the refused rate is tried again; it holds: seek again.
      now += PROBE.holdMs;
      expect(await a.speedUp(await heldAStep(a))).toBeNull();
      now += (PROBE.holdRequests * 1000) / 8 - PROBE.holdMs;
      expect(await a.speedUp(await heldAStep(a))).toEqual({ from: 8, to: 9 });
      expect(await a.speedUp(await heldAStep(a))).toEqual({ from: 9, to: 13 });
      expect((await a.currentRate()).refusedAt).toBeUndefined();
    });

    it("lowers a rate that held by a step at its first 429 and by 30 % at the next, and never raises it within a step of a 429", async () => {
      const shared = budget(probing("probe-lower-key"));
      await shared.speedUp(await heldAStep(shared));
      await shared.speedUp(await heldAStep(shared));
      expect(await shared.speedUp(await heldAStep(shared))).toEqual({ from: 3, to: 4 });
      const early = await sent(shared);
      expect(await shared.slowDown(await sent(shared))).toEqual({ from: 4, to: 3 });
      const lease = await heldAStep(shared);
      // Granted before that decrease: the same burst, no second decrease, yet a 429 all the same.
      expect(await shared.slowDown(early)).toBeNull();
      expect(await shared.speedUp(lease)).toBeNull();
      // 3 had held before 4 was tried: a 429 at it takes a request off; the next one, 30 %.
      expect(await shared.slowDown(await sent(shared))).toEqual({ from: 3, to: 2 });
      expect(await shared.slowDown(await sent(shared))).toEqual({ from: 2, to: 1 });
    });

    it("blames a 429 on the rate its request was sent at: one granted before a raise, on the rate that held", async () => {
      const shared = budget(probing("probe-blame-key"));
      await shared.speedUp(await heldAStep(shared));
      await shared.speedUp(await heldAStep(shared));
      const sentAtThree = await heldAStep(shared);
      expect(await shared.speedUp(sentAtThree)).toEqual({ from: 3, to: 4 });
      expect(await shared.slowDown(sentAtThree)).toEqual({ from: 4, to: 2 });
      expect(await shared.currentRate()).toEqual({
        requestsPerSecond: 2,
        source: "backoff",
        refusedAt: 3,
      });
    });

    it("does not raise a rate its callers never fill: one at a time, or two at once", async () => {
      const shared = budget(probing("probe-idle-key"));
      const unfilled = async (together: number) => {
        const leases: Lease[] = [];
        while (leases.length < together) leases.push(await takeStepping(shared));
        for (const lease of leases) await lease.release();
        // Past the window: the next ones find it empty again.
        now += 1100;
        return leases.at(-1) as Lease;
      };
      await shared.speedUp(await unfilled(1));
      for (const together of [1, 2, 1, 2]) {
        expect(await shared.speedUp(await unfilled(together))).toBeNull();
      }
      const before = await sent(shared);
      await before.release();
      expect(await shared.speedUp(await heldAStep(shared))).toEqual({ from: 2, to: 3 });
      // Sent before that raise: its success says nothing of 3.
      expect(await shared.speedUp(before)).toBeNull();
      expect(await shared.currentRate()).toEqual({ requestsPerSecond: 3, source: "probe" });
    });

    it("never passes the ceiling, whether probed, stated, or learned by a process with a higher one", async () => {
      const bounded = budget(probing("probe-ceiling-key", { start: 3, max: 5 }));
      await bounded.speedUp(await heldAStep(bounded));
      expect(await raiseUntilHeld(bounded)).toEqual([4, 5]);
      expect(await bounded.currentRate()).toEqual({ requestsPerSecond: 5, source: "ceiling" });
      expect(await bounded.setLimit(50)).toBeNull();
      expect(await bounded.currentRate()).toEqual({ requestsPerSecond: 5, source: "ceiling" });
      expect(await bounded.setLimit(4)).toEqual({ from: 5, to: 4 });
      expect(await bounded.currentRate()).toEqual({ requestsPerSecond: 4, source: "limit" });

      // A process without a ceiling learned 9; one with a ceiling of 3 paces and reads 3.
      const free = budget(probing("probe-ceilings-key"));
      expect(await raisedTimes(free, 4)).toEqual([3, 4, 6, 9]);
      const low = budget(probing("probe-ceilings-key", { start: 2, max: 3 }));
      expect(await low.currentRate()).toEqual({ requestsPerSecond: 3, source: "ceiling" });
      // Three a window of 1,050 ms: the fourth waits for the first to leave it.
      expect(await spanOfFourGrants(low)).toBeGreaterThanOrEqual(1050);
      // Its answers bring the shared rate down to its ceiling.
      expect(await low.speedUp(await sent(low))).toEqual({ from: 9, to: 3 });
    });

    it("never speeds up on a 429, even from a start below the least rate", async () => {
      const slow = budget(probing("probe-floor-key", { start: 0.05, max: null }));
      expect(await slow.slowDown(await sent(slow))).toBeNull();
      expect((await slow.currentRate()).requestsPerSecond).toBe(0.05);
    });

    it("is what a budget made later (a restarted worker) paces at, kept for the learned rate's lifetime", async () => {
      const first = budget(probing("probe-restart-key"));
      expect(await raisedTimes(first, 5)).toEqual([3, 4, 6, 9, 13]);
      const restarted = budget(probing("probe-restart-key"));
      expect(await restarted.currentRate()).toEqual({ requestsPerSecond: 13, source: "probe" });
      const ttl = await redis.pttl(`${prefix}budget:${restarted.sharedBy}:rate`);
      expect(ttl).toBeGreaterThan(LEARNED_RATE_TTL_MS - 60_000);
      // Spaced 1/13 s apart, where the start's rate would space them 500 ms.
      expect(await spanOfFourGrants(restarted)).toBeLessThan(3 * 500);
    });

    it("keeps a limit stated on a 429 alone for as long as answers succeed at it", async () => {
      const shared = budget(probing("probe-stated-key"));
      await shared.setLimit(7);
      await redis.pexpire(`${prefix}budget:${shared.sharedBy}:rate`, 60_000);
      expect(await shared.speedUp(await sent(shared))).toBeNull();
      expect(await redis.pttl(`${prefix}budget:${shared.sharedBy}:rate`)).toBeGreaterThan(60_000);
      expect(await shared.currentRate()).toEqual({ requestsPerSecond: 7, source: "limit" });
    });
  });

  it("with a fixed rate, ignores what the upstream states", async () => {
    const fixed = budget({ apiKey: "fixed-rate-key", requestsPerSecond: 3 });
    const lease = await sent(fixed);
    expect(await fixed.setLimit(50)).toBeNull();
    expect(await fixed.slowDown(lease)).toBeNull();
    expect(await fixed.speedUp(lease)).toBeNull();
    expect(await fixed.currentRate()).toEqual({ requestsPerSecond: 3, source: "config" });
    expect(await redis.exists(`${prefix}budget:${fixed.sharedBy}:rate`)).toBe(0);
  });

  it("keeps budgets of different credentials apart, and no key in Redis names the credential", async () => {
    await budget({ apiKey: "paused-credential" }).pause(5000);
    expect("release" in (await budget({ apiKey: "other-credential" }).tryAcquire(request))).toBe(
      true,
    );
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
