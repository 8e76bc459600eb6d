import type { AppContext } from "../../src/app-context.js";
import { RateLimitedError } from "../../src/http/upstream-errors.js";
import type { Upstream } from "./upstream.js";
import { until } from "./until.js";
import { getTerritoriesOperation } from "../../src/streams/catalogue/territories.js";

export interface Driven {
  /** Requests that reached the sandbox, 429s included. */
  readonly requests: number;
  readonly rateLimited: number;
  /** The most requests the sandbox received in one of its seconds. */
  readonly mostInOneSecond: number;
}

/**
 * Keeps `callers` requests waiting on the budget (spread over `stacks`, like worker processes)
 * until `done` holds (looked at every 100 ms, failing the test after `timeoutMs`), then reads what
 * the sandbox counted. On real time: what it asserts must be counted, never timed, and hold on a
 * machine twice as slow (the rules themselves are tested on a stepped clock, rate-learning.test.ts).
 */
export async function driveUntil(
  upstream: Upstream,
  done: () => Promise<boolean>,
  options: {
    readonly stacks?: readonly AppContext[];
    readonly callers?: number;
    readonly timeoutMs: number;
  },
): Promise<Driven> {
  const stacks = options.stacks ?? [upstream.context];
  upstream.sandbox.resetStats();
  const stop = new AbortController();
  const callers = Array.from({ length: options.callers ?? 8 }, async (_, i) => {
    const api = (stacks[i % stacks.length] as AppContext).api;
    while (!stop.signal.aborted) {
      await api
        .call(getTerritoriesOperation, { key: "all" }, { signal: stop.signal })
        .catch((error) => {
          if (stop.signal.aborted) return;
          // A call may spend its retries on 429s while the rate is being found: as a worker's next
          // partition would, the caller asks again. Anything else fails the drive.
          if (!(error instanceof RateLimitedError)) throw error;
        });
    }
  });
  try {
    await Promise.race([until(done, options.timeoutMs), ...callers]);
  } finally {
    stop.abort();
    await Promise.allSettled(callers);
  }
  const stats = upstream.sandbox.stats();
  return {
    requests: stats.requests,
    rateLimited: stats.rateLimited,
    mostInOneSecond: stats.maxPerSecond,
  };
}
