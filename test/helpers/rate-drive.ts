import type { AppContext } from "../../src/app-context.js";
import { RateLimitedError } from "../../src/errors.js";
import type { CurrentRate } from "../../src/http/auto-rate.js";
import type { SandboxStats } from "../../sandbox/index.js";
import type { Upstream } from "./upstream.js";

/** How often the learned rate is read while driving. */
const POLL_MS = 100;

export interface Driven {
  /** Requests that reached the sandbox, 429s included, per epoch second. */
  readonly perSecond: Readonly<Record<number, number>>;
  /** 429s the sandbox answered, per epoch second. */
  readonly rateLimitedPerSecond: Readonly<Record<number, number>>;
  readonly requests: number;
  readonly rateLimited: number;
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
 * reads what the sandbox counted. `during` runs beside it (a change of the upstream's limit).
 */
export async function drive(
  upstream: Upstream,
  options: {
    readonly stacks?: readonly AppContext[];
    readonly callers?: number;
    readonly settleS: number;
    readonly measureS: number;
    readonly during?: () => Promise<void>;
    /** The limit was just cut far below the rate learned: calls may run out of retries. */
    readonly storm?: boolean;
  },
): Promise<Driven> {
  const stacks = options.stacks ?? [upstream.context];
  upstream.sandbox.resetStats();
  const measuredFrom = Math.floor(Date.now() / 1000) + 1 + options.settleS;
  // Callers still waiting for a slot at the end stop waiting instead of running on.
  const end = AbortSignal.timeout((measuredFrom + options.measureS) * 1000 - Date.now());
  const rates: { at: number; rate: CurrentRate }[] = [];
  const polling = (async () => {
    while (!end.aborted) {
      rates.push({ at: Date.now(), rate: await (stacks[0] as AppContext).budget.currentRate() });
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  })();
  await Promise.all([
    polling,
    options.during?.(),
    ...Array.from({ length: options.callers ?? 8 }, async (_, i) => {
      const api = (stacks[i % stacks.length] as AppContext).api;
      while (!end.aborted) {
        await api.catalogue.getTerritories({ key: "all" }, { signal: end }).catch((error) => {
          if (end.aborted) return;
          // In a storm a call may spend its retries on 429s: as a worker's next partition would,
          // the caller asks again. Anywhere else a call that gives up fails the drive.
          if (!(options.storm === true && error instanceof RateLimitedError)) throw error;
        });
      }
    }),
  ]);
  const stats: SandboxStats = upstream.sandbox.stats();
  let measured = 0;
  for (let second = measuredFrom; second < measuredFrom + options.measureS; second++) {
    measured += stats.perSecond[second] ?? 0;
  }
  return {
    perSecond: stats.perSecond,
    rateLimitedPerSecond: stats.rateLimitedPerSecond,
    requests: stats.requests,
    rateLimited: stats.rateLimited,
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
