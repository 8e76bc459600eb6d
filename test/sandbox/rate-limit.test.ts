import { afterEach, describe, expect, it } from "vitest";
import { type Sandbox, startSandbox } from "../../sandbox/index.js";
import { type CallResult, call } from "./call.js";

/**
 * The sandbox's clock, held by the test: a burst lands within one of the limit's seconds however
 * slowly the machine sends it, and the next second comes when the test moves the clock. Starts
 * 5 ms into an epoch second.
 */
let now = 1_800_000_000_005;
const clock = () => now;

function header(result: CallResult, name: string): number | undefined {
  const value = result.headers[name.toLowerCase()];
  return value === undefined ? undefined : Number(value);
}

describe("sandbox rate limit", () => {
  let sandbox: Sandbox;
  afterEach(() => sandbox.close());

  it("admits the limit per epoch second and answers 429 with Retry-After and X-RateLimit-*", async () => {
    sandbox = await startSandbox({ today: "2026-02-01", clock, knobs: { requestsPerSecond: 3 } });
    const results = await Promise.all(
      Array.from({ length: 10 }, () => call(sandbox, "/api/v1/getDsps/all")),
    );
    const limited = results.filter((result) => result.status === 429);
    expect(limited).toHaveLength(7);
    for (const result of limited) {
      expect(header(result, "Retry-After")).toBe(1);
      expect(header(result, "X-RateLimit-Limit")).toBe(3);
      expect(header(result, "X-RateLimit-Remaining")).toBe(0);
      expect(header(result, "X-RateLimit-Reset")).toBe(Math.floor(now / 1000) + 1);
    }
    for (const result of results.filter((one) => one.status === 200)) {
      expect(header(result, "X-RateLimit-Limit")).toBe(3);
      expect(header(result, "X-RateLimit-Remaining")).toBeGreaterThanOrEqual(0);
    }
    const stats = sandbox.stats();
    expect(stats.rateLimited).toBe(limited.length);
    expect(stats.byStatus[429]).toBe(limited.length);
    expect(Object.values(stats.rateLimitedPerSecond).reduce((sum, n) => sum + n, 0)).toBe(
      limited.length,
    );
    expect(stats.requests).toBe(10);
    expect(Object.values(stats.perSecond).reduce((sum, count) => sum + count, 0)).toBe(10);
    expect(stats.maxPerSecond).toBe(Math.max(...Object.values(stats.perSecond)));
  });

  it("refills the budget in the next second", async () => {
    sandbox = await startSandbox({ today: "2026-02-01", clock, knobs: { requestsPerSecond: 1 } });
    expect((await call(sandbox, "/api/v1/getDsps/all")).status).toBe(200);
    const refused = await call(sandbox, "/api/v1/getDsps/all");
    expect(refused.status).toBe(429);
    now = (header(refused, "X-RateLimit-Reset") ?? 0) * 1000;
    expect((await call(sandbox, "/api/v1/getDsps/all")).status).toBe(200);
    expect((await call(sandbox, "/api/v1/getDsps/all")).status).toBe(429);
  });

  it("sends only X-RateLimit-Reset on 429 in reset-only mode", async () => {
    sandbox = await startSandbox({
      today: "2026-02-01",
      clock,
      knobs: { requestsPerSecond: 1, rateLimitHeaders: "reset-only" },
    });
    await call(sandbox, "/api/v1/getDsps/all");
    const refused = await call(sandbox, "/api/v1/getDsps/all");
    expect(refused.status).toBe(429);
    expect(header(refused, "Retry-After")).toBeUndefined();
    expect(header(refused, "X-RateLimit-Limit")).toBeUndefined();
    expect(header(refused, "X-RateLimit-Remaining")).toBeUndefined();
    expect(header(refused, "X-RateLimit-Reset")).toBe(Math.floor(now / 1000) + 1);
  });

  it("does not spend the budget on unauthorized requests, which still carry the headers", async () => {
    sandbox = await startSandbox({ today: "2026-02-01", clock, knobs: { requestsPerSecond: 1 } });
    const refused = await call(sandbox, "/api/v1/getDsps/all", { authorization: "Bearer nope" });
    expect(refused.status).toBe(401);
    expect(header(refused, "X-RateLimit-Remaining")).toBe(1);
    expect((await call(sandbox, "/api/v1/getDsps/all")).status).toBe(200);
  });

  it("sends X-RateLimit-* on every answer under a limit, faults and 404s included", async () => {
    sandbox = await startSandbox({
      today: "2026-02-01",
      clock,
      knobs: { requestsPerSecond: 100, faultRate: 1, faults: ["error500", "html503", "truncated"] },
    });
    const answers = await Promise.all(
      Array.from({ length: 12 }, () => call(sandbox, "/api/v1/getDsps/all")),
    );
    sandbox.setKnobs({ faultRate: 0 });
    answers.push(await call(sandbox, "/api/v1/no-such-operation"));
    expect(new Set(answers.map((answer) => answer.status))).toEqual(new Set([500, 503, 200, 404]));
    for (const answer of answers) {
      expect(header(answer, "X-RateLimit-Limit")).toBe(100);
      expect(header(answer, "X-RateLimit-Remaining")).toBeGreaterThanOrEqual(0);
      expect(header(answer, "X-RateLimit-Reset")).toBe(Math.floor(now / 1000) + 1);
    }
  });

  it("sends no rate-limit header at all in none mode, and still limits", async () => {
    sandbox = await startSandbox({
      today: "2026-02-01",
      clock,
      knobs: { requestsPerSecond: 1, rateLimitHeaders: "none" },
    });
    const answers = [
      await call(sandbox, "/api/v1/getDsps/all"),
      await call(sandbox, "/api/v1/getDsps/all"),
      await call(sandbox, "/api/v1/getDsps/all", { authorization: "Bearer nope" }),
    ];
    expect(answers.map((answer) => answer.status)).toEqual([200, 429, 401]);
    for (const answer of answers) {
      const names = Object.keys(answer.headers);
      expect(names.filter((name) => /ratelimit|retry-after/i.test(name))).toEqual([]);
    }
  });

  it.each([
    ["on-429", ["retry-after", "x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset"]],
    ["retry-after-only", ["retry-after"]],
  ] as const)(
    "states nothing on a success in %s mode, and on a 429 only %j",
    async (rateLimitHeaders, on429) => {
      sandbox = await startSandbox({
        today: "2026-02-01",
        clock,
        knobs: { requestsPerSecond: 1, rateLimitHeaders },
      });
      const [admitted, refused] = [
        await call(sandbox, "/api/v1/getDsps/all"),
        await call(sandbox, "/api/v1/getDsps/all"),
      ];
      const rateHeaders = (answer: CallResult) =>
        Object.keys(answer.headers)
          .filter((name) => /ratelimit|retry-after/i.test(name))
          .sort();
      expect([admitted?.status, refused?.status]).toEqual([200, 429]);
      expect(rateHeaders(admitted)).toEqual([]);
      expect(rateHeaders(refused)).toEqual([...on429].sort());
      expect(header(refused, "Retry-After")).toBe(1);
    },
  );

  it("counts over any 1000 ms in sliding mode: a second's turn gives no new budget", async () => {
    sandbox = await startSandbox({
      today: "2026-02-01",
      clock,
      knobs: { requestsPerSecond: 2, rateLimitWindow: "sliding" },
    });
    // Two in the last 300 ms of a second, then one just after its turn: still the same 1000 ms.
    now = Math.floor(now / 1000) * 1000 + 700;
    const early = [
      await call(sandbox, "/api/v1/getDsps/all"),
      await call(sandbox, "/api/v1/getDsps/all"),
    ];
    now += 320;
    const after = await call(sandbox, "/api/v1/getDsps/all");
    expect(early.map((answer) => answer.status)).toEqual([200, 200]);
    expect(after.status).toBe(429);
    expect(header(after, "X-RateLimit-Remaining")).toBe(0);
  });

  it("lets a burst of the limit through in bucket mode, then refills it a token at a time", async () => {
    sandbox = await startSandbox({
      today: "2026-02-01",
      clock,
      knobs: { requestsPerSecond: 2, rateLimitWindow: "bucket" },
    });
    const burst = await Promise.all(
      Array.from({ length: 4 }, () => call(sandbox, "/api/v1/getDsps/all")),
    );
    expect(burst.filter((answer) => answer.status === 200)).toHaveLength(2);
    // A token comes back every 500 ms, and not the second one with it.
    now += 600;
    expect((await call(sandbox, "/api/v1/getDsps/all")).status).toBe(200);
    expect((await call(sandbox, "/api/v1/getDsps/all")).status).toBe(429);
  });

  it("sends no rate-limit headers without a limit, and can be limited at run time", async () => {
    sandbox = await startSandbox({ today: "2026-02-01", clock });
    const free = await call(sandbox, "/api/v1/getDsps/all");
    expect(free.headers["x-ratelimit-limit"]).toBeUndefined();
    sandbox.setKnobs({ requestsPerSecond: 5 });
    const limited = await call(sandbox, "/api/v1/getDsps/all");
    expect(header(limited, "X-RateLimit-Limit")).toBe(5);
  });
});
