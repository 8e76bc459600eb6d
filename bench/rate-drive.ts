import type { AppContext } from "../src/app-context.js";
import { RateLimitedError } from "../src/http/upstream-errors.js";
import type { CurrentRate } from "../src/http/auto-rate.js";
import type { Upstream } from "../test/helpers/upstream.js";
import { getTerritoriesOperation } from "../src/streams/catalogue/territories.js";

/** How often the learned rate is read while driving. */
const POLL_MS = 100;

export interface Driven {
  /** Requests that reached the sandbox, 429s included, per epoch second. */
  readonly perSecond: Readonly<Record<number, number>>;
  /** 429s the sandbox answered, per epoch second. */
  readonly rateLimitedPerSecond: Readonly<Record<number, number>>;
  readonly requests: number;
  readonly rateLimited: number;
  /** When the callers started (epoch ms): the times to a learned rate count from here. */
  readonly startedAt: number;
  /** The first second after the settling ones: the measure starts there. */
  readonly measuredFrom: number;
  /** Requests per second over the measured seconds. */
  readonly measuredRate: number;
  /** The learned rate as the first stack read it, every POLL_MS (epoch ms). */
  readonly rates: readonly { readonly at: number; readonly rate: CurrentRate }[];
}

/**
 * Keeps `callers` requests waiting on the budget (spread over `stacks`, like worker processes)
 * for `settleS` seconds and `measureS` full seconds, reading the learned rate as it goes, then
 * reads what the sandbox counted.
 */
export async function drive(
  upstream: Upstream,
  options: {
    readonly stacks?: readonly AppContext[];
    readonly callers?: number;
    readonly settleS: number;
    readonly measureS: number;
  },
): Promise<Driven> {
  const stacks = options.stacks ?? [upstream.context];
  upstream.sandbox.resetStats();
  const startedAt = Date.now();
  const measuredFrom = Math.floor(startedAt / 1000) + 1 + options.settleS;
  // Callers still waiting for a slot at the end stop waiting instead of running on.
  const end = AbortSignal.timeout((measuredFrom + options.measureS) * 1000 - startedAt);
  const rates: { at: number; rate: CurrentRate }[] = [];
  const polling = (async () => {
    while (!end.aborted) {
      rates.push({ at: Date.now(), rate: await (stacks[0] as AppContext).budget.currentRate() });
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  })();
  const callers = Array.from({ length: options.callers ?? 8 }, async (_, i) => {
    const api = (stacks[i % stacks.length] as AppContext).api;
    while (!end.aborted) {
      await api.call(getTerritoriesOperation, { key: "all" }, { signal: end }).catch((error) => {
        if (end.aborted) return;
        // A call may spend its retries on 429s while the rate is being found or after the limit
        // fell: as a worker's next partition would, the caller asks again. The sandbox counts
        // those 429s; anything else fails the section.
        if (!(error instanceof RateLimitedError)) throw error;
      });
    }
  });
  await Promise.all([polling, ...callers]);
  const stats = upstream.sandbox.stats();
  let measured = 0;
  for (let second = measuredFrom; second < measuredFrom + options.measureS; second++) {
    measured += stats.perSecond[second] ?? 0;
  }
  return {
    perSecond: stats.perSecond,
    rateLimitedPerSecond: stats.rateLimitedPerSecond,
    requests: stats.requests,
    rateLimited: stats.rateLimited,
    startedAt,
    measuredFrom,
    measuredRate: measured / options.measureS,
    rates,
  };
}

/** 429s answered in or after `from` (an epoch second). */
export function rateLimitedFrom(driven: Driven, from: number): number {
  return Object.entries(driven.rateLimitedPerSecond)
    .filter(([second]) => Number(second) >= from)
    .reduce((sum, [, n]) => sum + n, 0);
}

/** The most requests the sandbox received in one second, from `from` (an epoch second) on. */
export function mostInOneSecond(driven: Driven, from = 0): number {
  return Math.max(
    0,
    ...Object.entries(driven.perSecond)
      .filter(([second]) => Number(second) >= from)
      .map(([, n]) => n),
  );
}

/** Seconds from the start until the learned rate first satisfied `reached`; never: Infinity. */
export function secondsUntil(driven: Driven, reached: (rate: CurrentRate) => boolean): number {
  const first = driven.rates.find((read) => reached(read.rate));
  return first === undefined ? Infinity : (first.at - driven.startedAt) / 1000;
}

/** The longest run of consecutive seconds that each had a 429. */
export function longestRateLimitedRun(driven: Driven): number {
  const seconds = Object.keys(driven.rateLimitedPerSecond)
    .map(Number)
    .sort((a, b) => a - b);
  let longest = 0;
  let run = 0;
  seconds.forEach((second, i) => {
    run = i > 0 && seconds[i - 1] === second - 1 ? run + 1 : 1;
    longest = Math.max(longest, run);
  });
  return longest;
}

/** The learned rates in the order they changed, "2 3 4 6 9 8": how the rate was found. */
export function learnedRates(driven: Driven): string {
  const changes = driven.rates
    .map((read) => read.rate.requestsPerSecond)
    .filter((rate, i, all) => i === 0 || all[i - 1] !== rate);
  return changes.map((rate) => String(Math.round(rate * 100) / 100)).join(" ");
}
