import { afterEach, describe, expect, it } from "vitest";
import { driveUntil } from "../helpers/rate-drive.js";
import { startUpstream, type Upstream } from "../helpers/upstream.js";
import { HANG_MS } from "../helpers/hang-limit.js";

// End to end, on real time: three client stacks probe an upstream that allows LIMIT requests a
// second and never says so, through the real client and the sandbox. The rules of probing are
// tested on a stepped clock in rate-learning.test.ts; the pace reached on real time, the time to
// find the limit and the share of 429s are the bench's (section 2).

const LIMIT = 12;

let opened: Upstream | undefined;

afterEach(async () => {
  await opened?.close();
  opened = undefined;
});

describe('requests_per_second: "auto" where the upstream never states its limit', () => {
  it("finds it by probing, one learned rate for every process, and 429s stay rare", async () => {
    opened = await startUpstream("probe-e2e", {
      sandbox: { knobs: { requestsPerSecond: LIMIT, rateLimitHeaders: "none", latencyMs: 20 } },
      etl: { requests_per_second: "auto", max_concurrency: 4 },
    });
    const upstream = opened;
    const stacks = [
      upstream.context,
      await upstream.connectAnother(),
      await upstream.connectAnother(),
    ];
    // 2, 3, 4, 6, 9, 13 a step of 2 s each, a 429 at 13, back to 9 and up to 11: some 14 s on a
    // quiet machine; a busy one takes longer, and is given four times as long. Within two of the
    // limit rather than one: a busy machine that bunches two sends into one of the upstream's
    // seconds may earn a 429 one request below it.
    const found = async () => {
      const rate = await upstream.context.budget.currentRate();
      return rate.refusedAt !== undefined && rate.requestsPerSecond >= LIMIT - 2;
    };
    const driven = await driveUntil(upstream, found, { stacks, timeoutMs: HANG_MS });
    const shared = await Promise.all(stacks.map((stack) => stack.budget.currentRate()));
    expect(new Set(shared.map((rate) => JSON.stringify(rate))).size).toBe(1);
    expect(shared[0]?.requestsPerSecond).toBeLessThanOrEqual(LIMIT + 1);
    // Probing earns a 429 or two at each rate it tries above the limit; a busy machine that
    // bunches sends earns a few more, never many.
    expect(driven.rateLimited / driven.requests).toBeLessThanOrEqual(0.05);
  });
});
