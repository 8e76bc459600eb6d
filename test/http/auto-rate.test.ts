import { afterEach, describe, expect, it } from "vitest";
import { etlConfigSchema } from "../../src/config/etl-config-schema.js";
import { beyondOneStep, describeRate, requestRate } from "../../src/http/auto-rate.js";
import { driveUntil } from "../helpers/rate-drive.js";
import { startUpstream, type Upstream } from "../helpers/upstream.js";

/** The test's sandbox and client stacks, closed after it. */
let opened: Upstream | undefined;

afterEach(async () => {
  await opened?.close();
  opened = undefined;
});

// End to end, on real time: the client reads a limit the sandbox states and every stack paces at
// it. The rules (probing, backing off, the ceiling, a limit stated on 429s alone) are tested on a
// stepped clock in rate-learning.test.ts, and the pace reached on real time by the bench.
describe('requests_per_second: "auto" where the upstream states its limit', () => {
  it("takes it at the first answer in every process sharing the budget, and 429s stay rare", async () => {
    const limit = 5;
    opened = await startUpstream("auto-rate-stated", {
      sandbox: {
        knobs: { requestsPerSecond: limit, rateLimitHeaders: "retry-after", latencyMs: 20 },
      },
      etl: { requests_per_second: "auto", max_concurrency: 4 },
    });
    const upstream = opened;
    // Two client stacks, like two worker processes: one learns, both send at the rate.
    const other = await upstream.connectAnother();
    const driven = await driveUntil(
      upstream,
      () => Promise.resolve(upstream.sandbox.stats().requests >= 60),
      {
        stacks: [upstream.context, other],
        timeoutMs: 120_000,
      },
    );
    for (const stack of [upstream.context, other]) {
      expect(await stack.budget.currentRate()).toEqual({
        requestsPerSecond: limit,
        source: "limit",
      });
    }
    // At the limit's pace, a 429 needs two sends 1/R apart to reach the sandbox within one of its
    // seconds: a busy machine may do that now and then, never often.
    expect(driven.rateLimited / driven.requests).toBeLessThanOrEqual(0.05);
  });
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
