import { afterEach, describe, expect, it } from "vitest";
import type { SandboxKnobs } from "../../sandbox/index.js";
import { type Driven, drive, rateLimitedFrom } from "../helpers/rate-drive.js";
import { startUpstream, type Upstream } from "../helpers/upstream.js";

/**
 * An upstream that allows LIMIT requests a second and never says so on a success: "auto" must
 * find it by probing. The seconds it takes: 2, 3, 4, 6, 9, 13 req/s a step (2 s) each, a 429 at
 * 13, then 11 and 12, where it holds.
 */
const LIMIT = 12;
const SETTLE_S = 20;
const MEASURE_S = 10;

let opened: Upstream | undefined;

afterEach(async () => {
  await opened?.close();
  opened = undefined;
});

async function silentUpstream(label: string, knobs: Partial<SandboxKnobs>): Promise<Upstream> {
  opened = await startUpstream(label, {
    sandbox: { knobs: { requestsPerSecond: LIMIT, latencyMs: 20, ...knobs } },
    etl: { requests_per_second: "auto", max_concurrency: 4 },
  });
  return opened;
}

function describeRun(what: string, driven: Driven): void {
  const rates = driven.rates.map((r) => r.rate.requestsPerSecond);
  console.log(
    `${what}: ${driven.measuredRate.toFixed(2)} req/s once settled (${(driven.measuredRate / LIMIT).toFixed(3)} of ${LIMIT}), ` +
      `${driven.rateLimited} 429s of ${driven.requests} requests, learned rates ${[...new Set(rates)].join(" ")}`,
  );
}

/** Epoch ms at which the learned rate rose, as read (at most 100 ms after it did). */
function raises(driven: Driven): number[] {
  return driven.rates
    .filter(
      (r, i) =>
        i > 0 && r.rate.requestsPerSecond > (driven.rates[i - 1]?.rate.requestsPerSecond ?? 0),
    )
    .map((r) => r.at);
}

describe('requests_per_second: "auto" where the upstream never states its limit', () => {
  it.each<[SandboxKnobs["rateLimitHeaders"], SandboxKnobs["rateLimitWindow"]]>([
    ["none", "second"],
    ["retry-after-only", "sliding"],
    ["none", "bucket"],
  ])(
    "probes up to just under it and runs there (429s with %s, counted per %s)",
    async (rateLimitHeaders, rateLimitWindow) => {
      const upstream = await silentUpstream(`probe-${rateLimitWindow}`, {
        rateLimitHeaders,
        rateLimitWindow,
      });
      const driven = await drive(upstream, { settleS: SETTLE_S, measureS: MEASURE_S });
      describeRun(`probing, 429s with ${rateLimitHeaders}, per ${rateLimitWindow}`, driven);
      expect(driven.measuredRate / LIMIT).toBeGreaterThanOrEqual(0.85);
      expect(driven.rateLimited / driven.requests).toBeLessThanOrEqual(0.03);
      const learned = await upstream.context.budget.currentRate();
      expect(learned.requestsPerSecond).toBeGreaterThanOrEqual(LIMIT - 1);
      // A token bucket lets a rate above its refill through until its burst is spent, so the
      // rate found there may sit above the limit for a while; the others refuse it at once.
      if (rateLimitWindow !== "bucket") {
        expect(learned.requestsPerSecond).toBeLessThanOrEqual(LIMIT);
      }
      expect(["probe", "backoff"]).toContain(learned.source);
    },
    90_000,
  );

  it("with three workers: one learned rate, the limit passed for a second at most after a raise, and a 429 storm answered by sending less", async () => {
    const upstream = await silentUpstream("probe-three", { rateLimitHeaders: "none" });
    const stacks = [
      upstream.context,
      await upstream.connectAnother(),
      await upstream.connectAnother(),
    ];
    const driven = await drive(upstream, { stacks, settleS: SETTLE_S, measureS: MEASURE_S });
    describeRun("probing with three workers", driven);
    const shared = await Promise.all(stacks.map((stack) => stack.budget.currentRate()));
    expect(new Set(shared.map((rate) => JSON.stringify(rate))).size).toBe(1);
    expect(driven.measuredRate / LIMIT).toBeGreaterThanOrEqual(0.85);
    expect(driven.rateLimited / driven.requests).toBeLessThanOrEqual(0.03);
    // Past the limit for a second at most: the first 429 pauses and slows every worker, so 429s
    // come in single seconds (two when a burst straddles the turn of one), each after a raise.
    const limited = Object.keys(driven.rateLimitedPerSecond)
      .map(Number)
      .sort((a, b) => a - b);
    const runs = limited.reduce<number[][]>((all, second) => {
      const run = all.at(-1);
      if (run && run.at(-1) === second - 1) run.push(second);
      else all.push([second]);
      return all;
    }, []);
    const raisedAt = raises(driven);
    for (const run of runs) {
      expect(run.length, `429s in seconds ${run.join(", ")}`).toBeLessThanOrEqual(2);
      const first = (run[0] as number) * 1000;
      expect(
        raisedAt.some((at) => at - 100 <= first + 1000),
        `a raise before ${first}`,
      ).toBe(true);
    }

    // The upstream now allows a quarter: every answer is a 429 for a while.
    const before = Math.max(
      ...Object.entries(driven.perSecond)
        .filter(([second]) => Number(second) >= driven.measuredFrom)
        .map(([, n]) => n),
    );
    upstream.sandbox.setKnobs({ requestsPerSecond: 3 });
    const storm = await drive(upstream, { stacks, settleS: 0, measureS: 12 });
    describeRun("the same three, the limit cut to 3", storm);
    const seconds = Object.keys(storm.perSecond)
      .map(Number)
      .sort((a, b) => a - b);
    // Never faster than before the storm: each 429 lowers the shared rate and pauses everyone.
    expect(Math.max(...seconds.map((s) => storm.perSecond[s] ?? 0))).toBeLessThanOrEqual(before);
    const stormRates = storm.rates.map((r) => r.rate.requestsPerSecond);
    const lowest = stormRates.indexOf(Math.min(...stormRates));
    expect(stormRates.slice(0, lowest + 1)).toEqual(
      [...stormRates.slice(0, lowest + 1)].sort((a, b) => b - a),
    );
    expect(Math.min(...stormRates)).toBeLessThanOrEqual(3);
    // Settled under the new limit: the last seconds pass it at most once (a probe).
    const last = seconds.at(-1) ?? 0;
    expect(rateLimitedFrom(storm, last - 4)).toBeLessThanOrEqual(2);
  }, 120_000);
});
