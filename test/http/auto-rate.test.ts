import { afterEach, describe, expect, it } from "vitest";
import type { AppContext } from "../../src/app-context.js";
import { etlConfigSchema } from "../../src/config/etl-config-schema.js";
import { AUTO_START_RATE } from "../../src/http/auto-rate.js";
import type { SandboxKnobs, SandboxStats } from "../../sandbox/index.js";
import { startUpstream, type Upstream } from "../helpers/upstream.js";

/** Seconds the client is given to find the rate; the measure starts after them. */
const SETTLE_S = 2;
/**
 * Full seconds over which the achieved rate is measured: at 3 req/s, 10 s hold 30 requests at
 * most, so fewer than 27 (0.9) is a real shortfall, not the rounding of a short window.
 */
const MEASURE_S = 10;
/** Callers that each send one request after another: more than the budget lets through. */
const CALLERS = 8;

/** The test's sandbox and client stacks, closed after it. */
let opened: Upstream | undefined;

afterEach(async () => {
  await opened?.close();
  opened = undefined;
});

/** A sandbox limited to `limit` req/s and a client stack with `requests_per_second: "auto"`. */
async function autoClient(
  label: string,
  limit: number,
  rateLimitHeaders: SandboxKnobs["rateLimitHeaders"],
): Promise<Upstream> {
  opened = await startUpstream(label, {
    sandbox: { knobs: { requestsPerSecond: limit, rateLimitHeaders, latencyMs: 20 } },
    etl: { requests_per_second: "auto", max_concurrency: 4 },
  });
  return opened;
}

interface Measured {
  /** Requests the sandbox counted per second over the measured seconds. */
  readonly rate: number;
  /** 429s the sandbox answered in each second of the run. */
  readonly rateLimitedPerSecond: Readonly<Record<number, number>>;
  /** The first measured second: every 429 after the first ones comes at or after it. */
  readonly measuredFrom: number;
}

/**
 * Keeps CALLERS requests waiting on the budget (spread over the client stacks) for SETTLE_S
 * seconds and MEASURE_S full seconds, then reads what the sandbox counted.
 */
async function drive(
  upstream: Upstream,
  stacks: readonly AppContext[] = [upstream.context],
): Promise<Measured> {
  upstream.sandbox.resetStats();
  const measuredFrom = Math.floor(Date.now() / 1000) + 1 + SETTLE_S;
  // Callers still waiting for a slot at the end stop waiting instead of running on.
  const end = AbortSignal.timeout((measuredFrom + MEASURE_S) * 1000 - Date.now());
  await Promise.all(
    Array.from({ length: CALLERS }, async (_, i) => {
      const api = (stacks[i % stacks.length] as AppContext).api;
      while (!end.aborted) {
        await api.catalogue.getTerritories({ key: "all" }, { signal: end }).catch((error) => {
          if (!end.aborted) throw error;
        });
      }
    }),
  );
  const stats: SandboxStats = upstream.sandbox.stats();
  let requests = 0;
  for (let second = measuredFrom; second < measuredFrom + MEASURE_S; second++) {
    requests += stats.perSecond[second] ?? 0;
  }
  return {
    rate: requests / MEASURE_S,
    rateLimitedPerSecond: stats.rateLimitedPerSecond,
    measuredFrom,
  };
}

function total(counts: Readonly<Record<number, number>>): number {
  return Object.values(counts).reduce((sum, n) => sum + n, 0);
}

/** 429s answered in the measured seconds or later: none, once the client has found the rate. */
function lateRateLimited(measured: Measured): number {
  return Object.entries(measured.rateLimitedPerSecond)
    .filter(([second]) => Number(second) >= measured.measuredFrom)
    .reduce((sum, [, n]) => sum + n, 0);
}

describe('requests_per_second: "auto"', () => {
  it.each([3, 30])(
    "runs at 0.9 of a stated limit of %i req/s or more, with no 429 once settled",
    async (limit) => {
      const upstream = await autoClient(`auto-rate-${limit}`, limit, "retry-after");
      // Two client stacks, like two worker processes: one learns, both send at the rate.
      const other = await upstream.connectAnother();
      const measured = await drive(upstream, [upstream.context, other]);
      console.log(
        `auto, sandbox limit ${limit} req/s with headers: ${measured.rate.toFixed(2)} req/s over ${MEASURE_S} s (${(measured.rate / limit).toFixed(3)} of the limit), ${total(measured.rateLimitedPerSecond)} 429s in all`,
      );
      // A ratio: 0.9 * 3 is 2.7000000000000002 in floating point, more than 27 requests in 10 s.
      expect(measured.rate / limit).toBeGreaterThanOrEqual(0.9);
      expect(measured.rate / limit).toBeLessThanOrEqual(1);
      expect(lateRateLimited(measured)).toBe(0);
      for (const stack of [upstream.context, other]) {
        expect(await stack.budget.currentRate()).toEqual({
          requestsPerSecond: limit,
          source: "limit",
        });
      }
    },
    60_000,
  );

  it("without rate-limit headers, stays at the start rate below the upstream's limit: no 429", async () => {
    const upstream = await autoClient("auto-rate-silent", 3, "none");
    const measured = await drive(upstream);
    console.log(
      `auto, sandbox limit 3 req/s without headers: ${measured.rate.toFixed(2)} req/s, ${total(measured.rateLimitedPerSecond)} 429s`,
    );
    expect(total(measured.rateLimitedPerSecond)).toBe(0);
    expect(measured.rate / AUTO_START_RATE).toBeLessThanOrEqual(1);
    expect(measured.rate / AUTO_START_RATE).toBeGreaterThanOrEqual(0.85);
    expect(await upstream.context.budget.currentRate()).toEqual({
      requestsPerSecond: AUTO_START_RATE,
      source: "start",
    });
  }, 60_000);

  it("without rate-limit headers, backs off below the start rate until the 429s stop", async () => {
    const upstream = await autoClient("auto-rate-backoff", 1, "none");
    const measured = await drive(upstream);
    console.log(
      `auto, sandbox limit 1 req/s without headers: ${measured.rate.toFixed(2)} req/s once settled, ${total(measured.rateLimitedPerSecond)} 429s, all before the measure: ${lateRateLimited(measured) === 0}`,
    );
    expect(total(measured.rateLimitedPerSecond)).toBeGreaterThan(0);
    expect(lateRateLimited(measured)).toBe(0);
    expect(measured.rate).toBeLessThanOrEqual(1);
    expect(await upstream.context.budget.currentRate()).toEqual({
      requestsPerSecond: 1,
      source: "backoff",
    });
  }, 60_000);
});

describe("requests_per_second in the config", () => {
  const parse = (value: unknown) =>
    etlConfigSchema.safeParse({ start_date: "2026-01-01", requests_per_second: value });

  it('takes a number greater than 0 or "auto", the default', () => {
    expect(parse(undefined).data?.requests_per_second).toBe("auto");
    expect(parse("auto").data?.requests_per_second).toBe("auto");
    expect(parse(0.5).data?.requests_per_second).toBe(0.5);
    expect(parse(-1).error?.issues[0]?.message).toBe("must be a number greater than 0");
    expect(parse("fast").error?.issues[0]?.message).toBe(
      'must be a number greater than 0 or "auto"',
    );
  });
});
