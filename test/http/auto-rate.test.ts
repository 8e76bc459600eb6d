import { afterEach, describe, expect, it } from "vitest";
import { etlConfigSchema } from "../../src/config/etl-config-schema.js";
import { beyondOneStep, describeRate, requestRate } from "../../src/http/auto-rate.js";
import type { SandboxKnobs } from "../../sandbox/index.js";
import { drive, rateLimitedFrom } from "../helpers/rate-drive.js";
import { startUpstream, type Upstream } from "../helpers/upstream.js";

/** The test's sandbox and client stacks, closed after it. */
let opened: Upstream | undefined;

afterEach(async () => {
  await opened?.close();
  opened = undefined;
});

/** A sandbox limited to `limit` req/s and a client stack with `requests_per_second` "auto". */
async function autoClient(
  label: string,
  limit: number,
  rateLimitHeaders: SandboxKnobs["rateLimitHeaders"],
  rate: unknown = "auto",
): Promise<Upstream> {
  opened = await startUpstream(label, {
    sandbox: { knobs: { requestsPerSecond: limit, rateLimitHeaders, latencyMs: 20 } },
    etl: { requests_per_second: rate, max_concurrency: 4 },
  });
  return opened;
}

describe('requests_per_second: "auto" where the upstream states its limit', () => {
  it.each([3, 30])(
    "runs at 0.9 of a stated limit of %i req/s or more, with no 429 once settled",
    async (limit) => {
      const upstream = await autoClient(`auto-rate-${limit}`, limit, "retry-after");
      // Two client stacks, like two worker processes: one learns, both send at the rate.
      const other = await upstream.connectAnother();
      const driven = await drive(upstream, {
        stacks: [upstream.context, other],
        settleS: 2,
        measureS: 10,
      });
      console.log(
        `auto, sandbox limit ${limit} req/s with headers: ${driven.measuredRate.toFixed(2)} req/s over 10 s (${(driven.measuredRate / limit).toFixed(3)} of the limit), ${driven.rateLimited} 429s in all`,
      );
      // A ratio: 0.9 * 3 is 2.7000000000000002 in floating point, more than 27 requests in 10 s.
      expect(driven.measuredRate / limit).toBeGreaterThanOrEqual(0.9);
      expect(driven.measuredRate / limit).toBeLessThanOrEqual(1);
      expect(rateLimitedFrom(driven, driven.measuredFrom)).toBe(0);
      for (const stack of [upstream.context, other]) {
        expect(await stack.budget.currentRate()).toEqual({
          requestsPerSecond: limit,
          source: "limit",
        });
      }
    },
    60_000,
  );

  it("takes a limit stated on 429s alone, found by probing, and probes no further", async () => {
    const upstream = await autoClient("auto-rate-on-429", 8, "on-429");
    const driven = await drive(upstream, { settleS: 14, measureS: 6 });
    console.log(
      `auto, sandbox limit 8 req/s stated on 429s only: ${driven.measuredRate.toFixed(2)} req/s once settled, ${driven.rateLimited} 429s of ${driven.requests}`,
    );
    expect(await upstream.context.budget.currentRate()).toEqual({
      requestsPerSecond: 8,
      source: "limit",
    });
    // Probing went 2, 3, 4, 6, 9: the first 429 stated 8, and the rate stayed there.
    const learned = driven.rates.map((r) => r.rate.requestsPerSecond);
    expect(Math.max(...learned)).toBe(9);
    expect(learned.at(-1)).toBe(8);
    expect(driven.rates.filter((r) => r.rate.source === "limit").length).toBeGreaterThan(0);
    expect(rateLimitedFrom(driven, driven.measuredFrom)).toBe(0);
    expect(driven.measuredRate / 8).toBeGreaterThanOrEqual(0.9);
  }, 60_000);

  it("never passes its max, however much more the upstream allows", async () => {
    const upstream = await autoClient("auto-rate-ceiling", 30, "none", { auto: { max: 5 } });
    const driven = await drive(upstream, { settleS: 7, measureS: 5 });
    console.log(
      `auto up to 5 req/s, sandbox limit 30 without headers: ${driven.measuredRate.toFixed(2)} req/s, most in a second ${Math.max(...Object.values(driven.perSecond))}`,
    );
    expect(await upstream.context.budget.currentRate()).toEqual({
      requestsPerSecond: 5,
      source: "ceiling",
    });
    expect(Math.max(...driven.rates.map((r) => r.rate.requestsPerSecond))).toBe(5);
    expect(Math.max(...Object.values(driven.perSecond))).toBeLessThanOrEqual(5);
    expect(driven.rateLimited).toBe(0);
  }, 60_000);
});

describe("what a change of the learned rate logs", () => {
  it("is a change larger than one step of probing: a request a second, or a tenth of the rate", () => {
    // Closing in and holding: a request at a time, not logged.
    expect(beyondOneStep({ from: 12, to: 13 })).toBe(false);
    expect(beyondOneStep({ from: 13, to: 12 })).toBe(false);
    expect(beyondOneStep({ from: 0.5, to: 0.55 })).toBe(false);
    // Seeking, and backing off: logged.
    expect(beyondOneStep({ from: 9, to: 13 })).toBe(true);
    expect(beyondOneStep({ from: 12, to: 8 })).toBe(true);
    expect(beyondOneStep({ from: 0.5, to: 0.35 })).toBe(true);
  });
});

describe("requests_per_second in the config", () => {
  const parse = (value: unknown) =>
    etlConfigSchema.safeParse({ start_date: "2026-01-01", requests_per_second: value });

  it('takes a number greater than 0, "auto" (the default), or "auto" with a start and a max', () => {
    const read = (value: unknown) => {
      const setting = parse(value).data?.requests_per_second;
      return setting === undefined ? undefined : requestRate(setting);
    };
    expect(read(undefined)).toEqual({ start: 2, max: null });
    expect(read("auto")).toEqual({ start: 2, max: null });
    expect(read({ auto: {} })).toEqual({ start: 2, max: null });
    expect(read({ auto: { max: 10 } })).toEqual({ start: 2, max: 10 });
    expect(read({ auto: { start: 0.5, max: 1 } })).toEqual({ start: 0.5, max: 1 });
    expect(read(0.5)).toBe(0.5);
    // Terms that name 1 req/s: it starts there, not at the 2 it starts at otherwise.
    expect(read({ auto: { max: 1 } })).toEqual({ start: 1, max: 1 });
    expect(describeRate({ auto: { start: 0.5, max: 1 } })).toBe(
      "auto from 0.5 req/s up to 1 req/s",
    );
  });

  it("says what it takes when given something else", () => {
    expect(parse(-1).error?.issues[0]?.message).toBe("must be a number greater than 0");
    expect(parse("fast").error?.issues[0]?.message).toMatch(
      /^must be a number greater than 0, "auto", or \{"auto": \{"start": N, "max": N\}\}/,
    );
    expect(parse({ auto: { start: 4, max: 2 } }).error?.issues[0]?.message).toBe(
      "start must not be above max",
    );
    expect(parse({ auto: { max: 0 } }).error?.issues[0]?.message).toBe(
      "must be a number greater than 0",
    );
    expect(parse({ auto: { ceiling: 3 } }).success).toBe(false);
  });
});
