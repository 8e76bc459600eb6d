import { afterEach, describe, expect, it } from "vitest";
import type { AutoRate } from "../../src/http/auto-rate.js";
import {
  type RateSimulation,
  type SimulationOptions,
  type Stretch,
  startRateSimulation,
} from "../helpers/rate-simulation.js";

// What requests_per_second "auto" learns of an upstream's limit, on a clock the test steps (see
// rate-simulation.ts): every figure below is counted per simulated second, the same on a quiet
// machine and a busy one. What the pace is on real time is the bench's (section 2).

const AUTO: AutoRate = { start: 2, max: null };

let opened: RateSimulation | undefined;

afterEach(async () => {
  await opened?.close();
  opened = undefined;
});

function simulation(options: SimulationOptions): RateSimulation {
  opened = startRateSimulation(options);
  return opened;
}

const sum = (counts: readonly number[]) => counts.reduce((total, n) => total + n, 0);
const learned = (stretch: Stretch) => stretch.changes.map((change) => change.to);

/** The seconds that saw a 429, in runs of consecutive seconds. */
function rateLimitedRuns(stretch: Stretch): number[][] {
  const runs: number[][] = [];
  stretch.rateLimitedPerSecond.forEach((n, second) => {
    if (n === 0) return;
    const run = runs.at(-1);
    if (run && run.at(-1) === second - 1) run.push(second);
    else runs.push([second]);
  });
  return runs;
}

describe('requests_per_second: "auto" where the upstream states its limit on every answer', () => {
  it.each([3, 30])(
    "takes a limit of %i req/s at the first answer, runs at 0.9 of it, with no 429",
    async (limit) => {
      const sim = simulation({
        label: `stated-${limit}`,
        rate: AUTO,
        limit: { requestsPerSecond: limit, headers: "retry-after" },
        processes: 2,
      });
      const settling = await sim.run(2);
      const measured = await sim.run(10);
      expect(settling.changes.map(({ from, to }) => ({ from, to }))).toEqual([
        { from: 2, to: limit },
      ]);
      expect(sum(measured.perSecond)).toBeGreaterThanOrEqual(0.9 * limit * 10 - 1e-9);
      expect(Math.max(...measured.perSecond)).toBeLessThanOrEqual(limit);
      expect(settling.rateLimited + measured.rateLimited).toBe(0);
      expect(await sim.currentRates()).toEqual([
        { requestsPerSecond: limit, source: "limit" },
        { requestsPerSecond: limit, source: "limit" },
      ]);
    },
  );

  it("takes a limit stated on its 429s alone, found by probing, and probes no further", async () => {
    const sim = simulation({
      label: "stated-on-429",
      rate: AUTO,
      limit: { requestsPerSecond: 8, headers: "on-429" },
    });
    const settling = await sim.run(14);
    // Probing went 2, 3, 4, 6, 9 and on, past 8 (a rate one or two above it earns its first 429
    // only when its sends line up with the upstream's seconds): the first 429 stated 8, and the
    // rate stays there.
    expect(learned(settling).slice(0, 4)).toEqual([3, 4, 6, 9]);
    expect(learned(settling).at(-1)).toBe(8);
    expect(settling.changes.filter((change) => change.to < change.from)).toHaveLength(1);
    const measured = await sim.run(30);
    expect(measured.changes).toEqual([]);
    expect(measured.rateLimited).toBe(0);
    expect(sum(measured.perSecond)).toBeGreaterThanOrEqual(0.9 * 8 * 30);
    expect(await sim.currentRates()).toEqual([{ requestsPerSecond: 8, source: "limit" }]);
  });

  it("never passes its max, however much more the upstream allows", async () => {
    const sim = simulation({
      label: "ceiling",
      rate: { start: 2, max: 5 },
      limit: { requestsPerSecond: 30, headers: "none" },
    });
    const stretch = await sim.run(30);
    expect(learned(stretch)).toEqual([3, 4, 5]);
    expect(Math.max(...stretch.perSecond)).toBe(5);
    expect(stretch.rateLimited).toBe(0);
    expect(await sim.currentRates()).toEqual([{ requestsPerSecond: 5, source: "ceiling" }]);
  });
});

describe('requests_per_second: "auto" where the upstream never states its limit', () => {
  /** The limit "auto" must find, as seen on upstreams that say nothing of theirs. */
  const LIMIT = 12;

  it.each<[SimulationOptions["limit"]["headers"], SimulationOptions["limit"]["window"]]>([
    ["retry-after-only", "sliding"],
    ["none", "second"],
    ["none", "bucket"],
  ])(
    "probes up to just under it and runs there (429s with %s, counted per %s)",
    async (headers, window) => {
      const sim = simulation({
        label: `probe-${window}`,
        rate: AUTO,
        limit: { requestsPerSecond: LIMIT, headers, window },
      });
      const settling = await sim.run(20);
      expect(Math.max(...learned(settling))).toBeGreaterThanOrEqual(LIMIT - 1);
      // Two minutes at the rate found: the refused rate is tried again once a hold has passed.
      const measured = await sim.run(120);
      expect(sum(measured.perSecond)).toBeGreaterThanOrEqual(0.85 * LIMIT * 120);
      expect(measured.rateLimited / measured.requests).toBeLessThanOrEqual(0.01);
      const [rate] = await sim.currentRates();
      expect(["probe", "backoff"]).toContain(rate?.source);
      // A token bucket lets a rate above its refill through until its burst is spent, so the rate
      // found there swings around the limit (what it admits is still the limit, counted above);
      // the other windows refuse a rate above it at once.
      if (window !== "bucket") {
        expect(rate?.requestsPerSecond).toBeGreaterThanOrEqual(LIMIT - 1);
        expect(rate?.requestsPerSecond).toBeLessThanOrEqual(LIMIT);
      }
    },
  );

  it("with three workers: one learned rate, the limit passed for a second at most, and a 429 storm answered by sending less", async () => {
    const sim = simulation({
      label: "probe-three",
      rate: AUTO,
      limit: { requestsPerSecond: LIMIT, headers: "none" },
      processes: 3,
    });
    await sim.run(20);
    const measured = await sim.run(120);
    const shared = await sim.currentRates();
    expect(new Set(shared.map((rate) => JSON.stringify(rate))).size).toBe(1);
    expect(sum(measured.perSecond)).toBeGreaterThanOrEqual(0.85 * LIMIT * 120);
    expect(measured.rateLimited / measured.requests).toBeLessThanOrEqual(0.01);
    // The first 429 pauses and slows every worker: 429s come in single seconds (two when a burst
    // straddles the turn of one).
    for (const run of rateLimitedRuns(measured)) {
      expect(run.length, `429s in seconds ${run.join(", ")}`).toBeLessThanOrEqual(2);
    }

    // The upstream now allows a quarter: every answer is a 429 for a while.
    const before = Math.max(...measured.perSecond);
    sim.setLimit({ requestsPerSecond: 3 });
    const storm = await sim.run(12);
    // Never faster than before the storm: each 429 lowers the shared rate and pauses everyone.
    expect(Math.max(...storm.perSecond)).toBeLessThanOrEqual(before);
    expect(Math.min(...learned(storm))).toBeLessThanOrEqual(3);
    // Settled under the new limit: the last seconds pass it at most once (a probe).
    expect(sum(storm.rateLimitedPerSecond.slice(-5))).toBeLessThanOrEqual(2);
    const after = await sim.run(60);
    expect(after.rateLimited / after.requests).toBeLessThanOrEqual(0.02);
    expect(sum(after.perSecond)).toBeGreaterThanOrEqual(0.75 * 3 * 60);
  });
});
