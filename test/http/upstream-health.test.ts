import { Redis } from "ioredis";
import { describe, expect, it } from "vitest";
import {
  FailureBodyError,
  InvalidJsonError,
  NetworkError,
  RateLimitedError,
  RequestTimeoutError,
  UpstreamStatusError,
} from "../../src/http/upstream-errors.js";
import { RequestBudget } from "../../src/http/request-budget.js";
import { type HealthSign, healthSignOf } from "../../src/http/upstream-health.js";
import { deleteKeysWithPrefix, REDIS_URL, uniquePrefix } from "../helpers/redis.js";

// Which tries say the upstream itself failed, and when enough of them, from every process
// sharing the budget, say it is down.

const request = { operation: "catalogue.getTerritories", method: "GET", path: "/x" };

describe("a try's health sign", () => {
  it("is a failure for what the upstream's health causes, an answer for the API's own words", () => {
    const failed = [
      new UpstreamStatusError(request, 503, "Service Unavailable", undefined),
      new UpstreamStatusError(request, 500, "boom", undefined),
      new NetworkError(request, Object.assign(new Error("reset"), { code: "ECONNRESET" })),
      new RequestTimeoutError(request, 1000),
      new InvalidJsonError(request, 200, 120),
    ];
    const healthy = [
      undefined,
      new UpstreamStatusError(request, 404, "Artist not found", undefined),
      new UpstreamStatusError(request, 400, "bad parameter", undefined),
      new FailureBodyError(request, 200, "internal", '{"error":"internal"}'),
    ];
    expect(failed.map(healthSignOf)).toEqual(failed.map(() => "failed"));
    expect(healthy.map(healthSignOf)).toEqual(healthy.map(() => "healthy"));
    expect(healthSignOf(new RateLimitedError(request, 1000, null))).toBeNull();
    expect(healthSignOf(new DOMException("stopping", "AbortError"))).toBeNull();
  });
});

/** Two processes' budgets on one Redis prefix, deciding by a clock the test steps. */
function twoProcesses() {
  const redis = new Redis(REDIS_URL);
  const prefix = uniquePrefix("health-window");
  let now = 1_800_000_000_000;
  const budgetOfOne = () =>
    new RequestBudget({
      redis,
      keyPrefix: prefix,
      apiUrl: "http://upstream.simulated",
      apiKey: "simulated-key",
      requestsPerSecond: 1_000_000,
      maxConcurrency: 100,
      leaseMs: 60_000,
      maxPauseMs: 60_000,
      clock: () => now,
    });
  const budgets = [budgetOfOne(), budgetOfOne()] as const;

  /** A slot for process `i`. */
  const take = async (i: number) => {
    const lease = await budgets[i % 2 === 0 ? 0 : 1].tryAcquire(request);
    if (!("release" in lease)) throw new Error(`no slot: ${JSON.stringify(lease)}`);
    return lease;
  };
  return {
    take,
    /** One try of process `i` a millisecond long, ending with `sign`: whether it tripped. */
    try: async (i: number, sign: HealthSign) => {
      const lease = await take(i);
      now += 1;
      return lease.release(sign);
    },
    budget: budgets[0],
    step: (ms: number) => {
      now += ms;
    },
    close: async () => {
      await deleteKeysWithPrefix(prefix);
      redis.disconnect();
    },
  };
}

describe("the health window every process shares", () => {
  it("trips at 16 failures of the latest 20 of both processes together, not at 15", async () => {
    const processes = twoProcesses();
    try {
      const signs: HealthSign[] = [...Array(5).fill("healthy"), ...Array(15).fill("failed")];
      const tripped = [];
      for (const [i, sign] of signs.entries()) tripped.push(await processes.try(i, sign));
      expect(tripped).not.toContain(true);
      // The next failure pushes the oldest answer out: 16 failures among the latest 20.
      expect(await processes.try(1, "failed")).toBe(true);
      // Tripped, the window starts afresh.
      expect(await processes.try(0, "failed")).toBe(false);
    } finally {
      await processes.close();
    }
  });

  it("ignores what says nothing, forgets failures older than a minute, notes nothing while down", async () => {
    const processes = twoProcesses();
    try {
      for (let i = 0; i < 15; i++) await processes.try(i, "failed");
      for (let i = 0; i < 30; i++) expect(await processes.try(i, null)).toBe(false);
      processes.step(60_000);
      expect(await processes.try(0, "failed")).toBe(false);
      for (let i = 0; i < 14; i++) expect(await processes.try(i, "failed")).toBe(false);
      expect(await processes.try(1, "failed")).toBe(true);

      // Requests in flight as the outage is declared fail too: that is no news.
      const inFlight = await Promise.all(Array.from({ length: 20 }, (_, i) => processes.take(i)));
      const { budget } = processes;
      await budget.redis.hset(budget.outageKeys[0], "since", 1);
      for (const lease of inFlight) expect(await lease.release("failed")).toBe(false);
      expect(await budget.redis.llen(budget.outageKeys[2])).toBe(0);
    } finally {
      await processes.close();
    }
  });
});
