import { getEventListeners } from "node:events";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AppContext } from "../../src/app-context.js";
import { RETRY_BUDGET } from "../../src/http/retry-budget.js";
import { OUTAGE_RULE } from "../../src/http/upstream-health.js";
import { startUpstream, type Upstream } from "../helpers/upstream.js";
import { until } from "../helpers/until.js";
import { getTerritoriesOperation } from "../../src/streams/catalogue/territories.js";

// An upstream that is down for longer than the retries is one outage for every process sharing
// the budget: declared once, probed one request at a time with a doubling wait, and every request
// held back meanwhile is answered once it returns, its retries unspent.

const PACING = { firstMs: 100, maxMs: 800, pollMs: 20 };
const CONCURRENCY = 8;

let upstream: Upstream;
let other: AppContext;

beforeAll(async () => {
  upstream = await startUpstream("outage", {
    etl: { max_retries: 2, max_concurrency: CONCURRENCY },
    http: { probePacing: PACING },
    outageRule: OUTAGE_RULE,
  });
  other = await upstream.connectAnother();
});

afterAll(() => upstream.close());

const territories = (context: AppContext) =>
  context.api.call(getTerritoriesOperation, { key: "all" });

describe("an upstream down for longer than the retries", () => {
  it("is declared down once, probed with a doubling wait, and every request is answered after", async () => {
    const { sandbox, context } = upstream;
    const expected = (await territories(context)).records;
    const events: string[] = [];
    for (const client of [context, other]) {
      client.http.outage.on("down", () => events.push("down"));
      client.http.outage.on("up", () => events.push("up"));
    }
    sandbox.setKnobs({ down: true });
    sandbox.resetStats();
    const answers = Promise.all(
      Array.from({ length: 24 }, (_, i) => territories(i % 2 ? other : context)),
    );
    await until(async () => ((await context.http.outage.standing())?.probes ?? 0) >= 3);
    const standing = await context.http.outage.standing();
    const backoff = await upstream.context.redis.hget(context.budget.outageKeys[0], "backoff");
    const sentWhileDown = sandbox.stats().requests;
    sandbox.setKnobs({ down: false });
    const answered = await answers;

    expect(answered.map((answer) => answer.records)).toEqual(answered.map(() => expected));
    expect(standing?.problem).toMatch(/connection failed/);
    // Each failed probe doubled the wait before the next, up to the ceiling.
    expect(Number(backoff)).toBe(
      Math.min(PACING.maxMs, PACING.firstMs * 2 ** (standing?.probes ?? 0)),
    );
    // Before the declaration the window both processes share fills (16 failures, with what
    // their slots had in flight); after it, only probes reached the upstream.
    const probesSent = (standing?.probes ?? 0) + 1;
    expect(sentWhileDown).toBeLessThanOrEqual(16 + CONCURRENCY + probesSent);
    expect(sentWhileDown).toBeGreaterThanOrEqual(16 + (standing?.probes ?? 0));
    await until(() => Promise.resolve(!context.http.outage.down && !other.http.outage.down));
    expect(await context.http.outage.standing()).toBeNull();
    // Each process paused once and resumed once.
    expect(events.sort()).toEqual(["down", "down", "up", "up"]);
  });
});

/**
 * The signals Node keeps on `signal` for those `AbortSignal.any` derived from it: never released
 * while `signal` lives (nodejs/node#55351). Node's own field, read by its name.
 */
function dependantSignals(signal: AbortSignal): number {
  const field = Object.getOwnPropertySymbols(signal).find(
    (symbol) => symbol.description === "kDependantSignals",
  );
  const dependants = field === undefined ? undefined : (signal as never)[field];
  return (dependants as Set<unknown> | undefined)?.size ?? 0;
}

describe("the waits for an outage's end", () => {
  it("leave nothing behind on the long-lived signal they were given", async () => {
    const { sandbox, context } = upstream;
    // A worker's shutdown signal: every request it makes carries it, for the process's life.
    const shutdown = new AbortController();
    sandbox.setKnobs({ down: true });
    await context.http.outage.declare("down for the test");
    expect(context.http.outage.down).toBe(true);
    const waits = Array.from({ length: 50 }, () => context.http.outage.untilUp(shutdown.signal));
    sandbox.setKnobs({ down: false });
    await Promise.all(waits);

    expect(context.http.outage.down).toBe(false);
    expect(getEventListeners(shutdown.signal, "abort")).toHaveLength(0);
    expect(dependantSignals(shutdown.signal)).toBe(0);
  });
});

describe("a flaky upstream", () => {
  it("is never declared down, and its retries add at most half the answers and the budget's burst", async () => {
    // Retries enough that no request runs out of them: one in five fails, seven in a row never.
    const flaky = await startUpstream("flaky", {
      etl: { max_retries: 6 },
      http: { retryBudget: RETRY_BUDGET },
      outageRule: OUTAGE_RULE,
    });
    try {
      const { sandbox, context } = flaky;
      let downs = 0;
      context.http.outage.on("down", () => downs++);
      sandbox.setKnobs({ faultRate: 0.2, faults: ["error500", "html503", "reset"] });
      sandbox.resetStats();
      const started = performance.now();
      const requests = 300;
      const answered = await Promise.all(
        Array.from({ length: requests }, () => territories(context)),
      );
      const seconds = (performance.now() - started) / 1000;
      expect(answered.every((answer) => answer.records.length > 0)).toBe(true);
      expect(downs).toBe(0);
      const retries = sandbox.stats().requests - requests;
      // One try in five failed: about one retry per four answers.
      expect(retries).toBeGreaterThan(requests / 8);
      // The budget's bound: an answer refunds half a retry, 10 go at once, one more every 2 s.
      expect(retries).toBeLessThanOrEqual(requests / 2 + 10 + Math.ceil(seconds / 2));
    } finally {
      await flaky.close();
    }
  });
});
