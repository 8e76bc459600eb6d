import { getEventListeners } from "node:events";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  AuthError,
  NetworkError,
  RateLimitWaitTooLongError,
  UpstreamStatusError,
} from "../../src/http/upstream-errors.js";
import type { HttpTryEvent } from "../../src/http/http-messages.js";
import type { FaultKind } from "../../sandbox/index.js";
import { startUpstream, type Upstream } from "../helpers/upstream.js";
import { getDspsOperation } from "../../src/streams/catalogue/dsps.js";
import { getTerritoriesOperation } from "../../src/streams/catalogue/territories.js";
import { requestPayoutOperation } from "../../src/streams/royalties/payout-writes.js";
import { listPayoutsOperation } from "../../src/streams/royalties/payouts.js";

let upstream: Upstream;
/** Called after every try: tests use it to end a fault after N tries. */
let afterTry: (event: HttpTryEvent) => void = () => {};

beforeAll(async () => {
  upstream = await startUpstream("resilience", {
    etl: { request_timeout_ms: 500, max_retries: 4 },
    http: { onTry: (event) => afterTry(event) },
  });
});

afterAll(() => upstream.close());

beforeEach(() => {
  afterTry = () => {};
  upstream.sandbox.setKnobs({
    faultRate: 0,
    requestsPerSecond: null,
    down: false,
    slowMs: 3_000,
    latencyMs: 0,
  });
  upstream.sandbox.resetStats();
});

const territories = () => upstream.context.api.call(getTerritoriesOperation, { key: "all" });

/** The fault hits the first `failures` tries, then the upstream is healthy again. */
function faultFor(fault: FaultKind, failures: number) {
  upstream.sandbox.setKnobs({ faultRate: 1, faults: [fault] });
  afterTry = (event) => {
    if (event.tryNumber === failures) upstream.sandbox.setKnobs({ faultRate: 0 });
  };
}

describe("retries", () => {
  it.each(["error500", "html503", "reset", "truncated", "slow"] as const)(
    "%s is retried until it succeeds",
    async (fault) => {
      faultFor(fault, 2);
      const result = await territories();
      expect(result.records.length).toBeGreaterThan(0);
      const stats = upstream.sandbox.stats();
      expect(stats.faults[fault]).toBe(2);
      expect(stats.requests).toBe(3);
    },
  );

  it("gives up after max_retries with a typed error naming the operation", async () => {
    upstream.sandbox.setKnobs({ down: true });
    const error = await territories().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as NetworkError).message).toContain("catalogue.getTerritories");
    expect(upstream.sandbox.stats().requests).toBe(5);
  });

  it("does not retry other 4xx, and names operation, status and the upstream's message", async () => {
    const error = await upstream.context.http
      .request({
        operation: "trends.total",
        method: "GET",
        path: "/api/v1/getTrendsTotal",
        body: { selection_type: "galaxy", start_date: "2026-01-01", end_date: "2026-01-02" },
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UpstreamStatusError);
    const statusError = error as UpstreamStatusError;
    expect(statusError.status).toBe(422);
    expect(statusError.message).toMatch(
      /^trends\.total \(GET \/api\/v1\/getTrendsTotal\): HTTP 422: .*selection_type/,
    );
    expect(upstream.sandbox.stats().requests).toBe(1);
  });

  it("passes the caller's abort signal through, and an aborted call is not retried", async () => {
    faultFor("slow", 99);
    const error = await upstream.context.api
      .call(getTerritoriesOperation, { key: "all" }, { signal: AbortSignal.timeout(150) })
      .catch((e: unknown) => e);
    // Not the request's own timeout (500 ms, a RequestTimeoutError, retried): the caller's.
    expect((error as Error).name).toBe("TimeoutError");
    expect(upstream.sandbox.stats().requests).toBe(1);
  });

  it("leaves nothing attached to a long-lived caller signal once its calls are done", async () => {
    const shutdown = new AbortController();
    for (let i = 0; i < 20; i++) {
      await upstream.context.api.call(
        getTerritoriesOperation,
        { key: "all" },
        { signal: shutdown.signal },
      );
    }
    expect(getEventListeners(shutdown.signal, "abort")).toHaveLength(0);
    // What AbortSignal.any would have left behind for the life of the signal (a Node internal).
    const dependants = Object.getOwnPropertySymbols(shutdown.signal).find(
      (symbol) => symbol.description === "kDependantSignals",
    );
    const held = dependants
      ? (Reflect.get(shutdown.signal, dependants) as Set<unknown> | undefined)
      : undefined;
    expect(held?.size ?? 0).toBe(0);
  });
});

/** Starts just after a second boundary, so a burst lands in one second of the sandbox's clock. */
async function atStartOfSecond(): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 1005 - (Date.now() % 1000)));
}

describe("rate limiting", () => {
  it("honours Retry-After, and a second client waits out the same pause instead of earning a 429", async () => {
    // Latency keeps all three of the burst in flight before any answer can pause the others.
    upstream.sandbox.setKnobs({
      requestsPerSecond: 2,
      rateLimitHeaders: "retry-after",
      latencyMs: 100,
    });
    const other = await upstream.connectAnother();
    let refused!: () => void;
    const pausing = new Promise<void>((resolve) => {
      refused = resolve;
    });
    // Told after the 429's pause is set in Redis (a try's event comes once it is over).
    afterTry = (event) => {
      if (event.outcome === 429) refused();
    };
    await atStartOfSecond();
    // Three at once: two fit in this second, the third gets 429 with Retry-After: 1.
    const burst = Promise.all([territories(), territories(), territories()]);
    await pausing;
    const late = other.api.call(getTerritoriesOperation, { key: "all" });
    await Promise.all([burst, late]);

    const stats = upstream.sandbox.stats();
    expect(stats.rateLimited).toBe(1);
    expect(stats.byStatus[200]).toBe(4);
    // The retry and the late caller both waited for the pause to end, in the next second, and
    // the late caller was not refused.
    expect(Object.values(stats.perSecond)).toEqual([3, 2]);
  });

  it("honours X-RateLimit-Reset when it comes without Retry-After", async () => {
    upstream.sandbox.setKnobs({
      requestsPerSecond: 1,
      rateLimitHeaders: "reset-only",
      latencyMs: 100,
    });
    await atStartOfSecond();
    await Promise.all([territories(), territories()]);
    const stats = upstream.sandbox.stats();
    expect(stats.rateLimited).toBe(1);
    expect(stats.byStatus[200]).toBe(2);
    // One success and one 429 in the first second; the retry waited for the reset, the next one.
    expect(Object.values(stats.perSecond)).toEqual([2, 1]);
  });

  it("pauses every client when a success says the window is spent (X-RateLimit-Remaining: 0)", async () => {
    upstream.sandbox.setKnobs({ requestsPerSecond: 1 });
    const other = await upstream.connectAnother();
    await atStartOfSecond();
    await territories();
    await other.api.call(getTerritoriesOperation, { key: "all" });
    const stats = upstream.sandbox.stats();
    expect(stats.rateLimited).toBe(0);
    expect(stats.byStatus[200]).toBe(2);
  });

  it("fails with a typed error instead of sleeping past max_rate_limit_wait_ms", async () => {
    const capped = await startUpstream("resilience-cap", {
      etl: { max_rate_limit_wait_ms: 300 },
      sandbox: { knobs: { requestsPerSecond: 1 } },
    });
    try {
      const { api } = capped.context;
      await api.call(getTerritoriesOperation, { key: "all" });
      const error = await api
        .call(getTerritoriesOperation, { key: "all" })
        .catch((e: unknown) => e);
      // Refused, not slept: a wait would have ended in a third request, after Retry-After.
      expect(error).toBeInstanceOf(RateLimitWaitTooLongError);
      expect((error as Error).message).toContain("max_rate_limit_wait_ms");
      expect(capped.sandbox.stats().requests).toBe(2);
    } finally {
      await capped.close();
    }
  });
});

describe("authentication", () => {
  it("fails at once on 401 with AuthError, after exactly one request", async () => {
    const refused = await startUpstream("resilience-auth", { apiKey: "wrong-key-0123456789" });
    try {
      const error = await refused.context.api
        .call(getDspsOperation, { key: "all" })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(AuthError);
      expect((error as Error).message).toContain("check MUSIC_API_KEY");
      expect((error as Error).message).toContain("Invalid token");
      expect(refused.sandbox.stats().requests).toBe(1);
      expect(refused.sandbox.stats().unauthorized).toBe(1);
    } finally {
      await refused.close();
    }
  });
});

describe("a refused credential among concurrent calls", () => {
  it("costs one request: the others wait for its answer, then fail without sending", async () => {
    const refused = await startUpstream("resilience-auth-burst", {
      apiKey: "wrong-key-9876543210",
    });
    try {
      const calls = Array.from({ length: 10 }, () =>
        refused.context.api.call(getTerritoriesOperation, { key: "all" }).catch((e: unknown) => e),
      );
      const errors = await Promise.all(calls);
      expect(errors.every((e) => e instanceof AuthError)).toBe(true);
      expect(refused.sandbox.stats().requests).toBe(1);
      await refused.context.api.call(listPayoutsOperation).catch(() => undefined);
      expect(refused.sandbox.stats().requests).toBe(1);
    } finally {
      await refused.close();
    }
  });

  it("lets calls run concurrently once the credential is accepted", async () => {
    upstream.sandbox.setKnobs({ latencyMs: 50 });
    await Promise.all(Array.from({ length: 6 }, () => territories()));
    expect(upstream.sandbox.stats().peakConcurrency).toBeGreaterThan(1);
  });
});

describe("writes", () => {
  it("retries a payout request with the same idempotency key and creates one payout", async () => {
    const before = upstream.sandbox.data.payouts().length;
    upstream.sandbox.setKnobs({ dropFirstPayoutResponse: true });
    const result = await upstream.context.api.call(requestPayoutOperation, { amount: "150.00" });
    expect(result.accepted).toBe(true);
    expect(upstream.sandbox.stats().byOperation["royalties.requestPayout"]).toBe(2);
    expect(upstream.sandbox.data.payouts()).toHaveLength(before + 1);
    expect(result.payout?.idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
  });
});
