import { setTimeout as sleep } from "node:timers/promises";
import { linkedAbort } from "../async/linked-abort.js";
import { errorMessage } from "../errors.js";
import { isUpstreamAnswer, RateLimitWaitTooLongError } from "./upstream-errors.js";
import type { Logger } from "../logging/logger.js";
import {
  CLAIM_PROBE_SCRIPT,
  DECLARE_DOWN_SCRIPT,
  PROBE_FAILED_SCRIPT,
  UP_SCRIPT,
} from "./outage-scripts.js";
import type { RequestBudget } from "./request-budget.js";
import { healthSignOf } from "./upstream-health.js";

/** How the probes of a down upstream pace themselves. */
export interface ProbePacing {
  /** The wait before the first probe; each failed probe doubles it. */
  readonly firstMs: number;
  /** The longest wait between two probes. */
  readonly maxMs: number;
  /** How often a process waiting for the outage's end asks whether it ended. */
  readonly pollMs: number;
}

export const PROBE_PACING: ProbePacing = { firstMs: 2_000, maxMs: 120_000, pollMs: 1_000 };

/** What is known of an outage, for status, metrics and /readyz. */
export interface OutageStanding {
  readonly since: Date;
  readonly probes: number;
  readonly lastProbeAt: Date | null;
  readonly nextProbeAt: Date | null;
  readonly problem: string;
}

export interface UpstreamOutageOptions {
  readonly budget: RequestBudget;
  readonly logger: Logger;
  /** One light request to the upstream: resolves on any answer of the API's, rejects otherwise. */
  readonly probe: () => Promise<unknown>;
  readonly pacing?: ProbePacing;
}

/** What the outage tells its listeners: this process's view, and the outage's start and end. */
interface OutageEvents {
  /** This process knows the upstream down (it declared the outage or learned of it): pause. */
  down: [];
  /** This process knows the outage ended: resume. */
  up: [];
  /** This process declared the outage: told by one process of all. */
  declared: [since: Date, problem: string];
  /** This process's probe ended the outage: told by one process of all. */
  ended: [since: Date, failedProbes: number];
}

type Listeners = { [E in keyof OutageEvents]: ((...args: OutageEvents[E]) => void)[] };

/**
 * The upstream's health, as every process sharing its budget sees it. When most of the latest
 * requests of them all fail for the upstream's own reasons (OutageRule, noted as each request
 * frees its slot), the upstream is declared down in Redis, once for all: every process stops sending (the budget grants no slot but the
 * probe's), the requests that were failing wait for the end instead of spending their retries,
 * and one probe at a time, from any process, backing off from seconds to two minutes, finds when
 * the upstream answers again. Listeners hear of the change of this process's view ("down" once
 * it declares or learns of the outage, "up" once it ends) and pause or resume work.
 */
export class UpstreamOutage {
  readonly #options: UpstreamOutageOptions;
  readonly #pacing: ProbePacing;
  readonly #listeners: Listeners = { down: [], up: [], declared: [], ended: [] };
  /** While this process knows the upstream down: settles when the outage ends. */
  #watch: Promise<void> | null = null;
  /** Aborted by close: the watch stops, and so does every wait for the end. */
  readonly #closed = new AbortController();

  constructor(options: UpstreamOutageOptions) {
    this.#options = options;
    this.#pacing = options.pacing ?? PROBE_PACING;
  }

  on<E extends keyof OutageEvents>(event: E, listener: (...args: OutageEvents[E]) => void): void {
    this.#listeners[event].push(listener);
  }

  /** True while this process knows the upstream declared down. */
  get down(): boolean {
    return this.#watch !== null;
  }

  /**
   * A failure tripped the outage rule (Lease.release said so): declares the upstream down, once
   * for all; Redis away, says so, and the next failure to trip it tries again.
   */
  async declare(problem: string): Promise<void> {
    const { budget, logger } = this.#options;
    let declared: number;
    let since: number;
    try {
      [declared, since] = (await budget.run(DECLARE_DOWN_SCRIPT, budget.outageKeys, [
        this.#pacing.firstMs,
        problem,
      ])) as [number, number];
    } catch (error) {
      logger.warn({ err: errorMessage(error) }, "could not declare the upstream down");
      return;
    }
    if (declared === 1) {
      logger.error(
        { problem },
        "the upstream is down: most requests fail; sending nothing but a probe until it answers",
      );
      this.#notify("declared", new Date(since), problem);
    }
    this.#startWatch();
  }

  /** The budget refused a slot: another process declared the outage. */
  learnDown(): void {
    this.#startWatch();
  }

  /**
   * Resolves once the upstream is not (or no longer) declared down; probes meanwhile. Rejects
   * when `signal` aborts, when `maxWaitMs` have passed (with a TimeoutError), or when the outage
   * is closed (the process is stopping).
   */
  async untilUp(signal?: AbortSignal, maxWaitMs?: number): Promise<void> {
    const watch = this.#watch;
    if (!watch) return;
    // Both parents live as long as the process: linked, not AbortSignal.any (see linkedAbort).
    const stop = linkedAbort([this.#closed.signal, signal], maxWaitMs);
    try {
      stop.signal.throwIfAborted();
      await new Promise<void>((resolve, reject) => {
        stop.signal.addEventListener("abort", () => reject(stop.signal.reason as Error), {
          once: true,
        });
        void watch.then(resolve);
      });
    } finally {
      stop.close();
    }
  }

  /** Stops watching (the process is stopping): waits for the end reject, nothing more is asked. */
  close(): void {
    this.#closed.abort(new Error("stopping: no longer waiting for the upstream"));
  }

  /** The outage as Redis holds it; null when the upstream is not declared down. */
  standing(): Promise<OutageStanding | null> {
    return outageStanding(this.#options.budget);
  }

  /**
   * For /readyz: rejects while the upstream is declared down, as the credential gate does while
   * the key is refused: the worker takes no job, and resumes by itself once a probe is answered.
   */
  async health(): Promise<void> {
    const standing = await this.standing();
    if (standing) throw new Error(outageText(standing));
  }

  #startWatch(): void {
    if (this.#watch) return;
    this.#watch = this.#waitForEnd().finally(() => {
      this.#watch = null;
      // Closed, it did not end: the process is stopping.
      if (!this.#closed.signal.aborted) this.#notify("up");
    });
    this.#notify("down");
  }

  /** Until the outage ends: probes when due and no other process is probing, else waits. */
  async #waitForEnd(): Promise<void> {
    const { budget, logger } = this.#options;
    const { signal } = this.#closed;
    while (!signal.aborted) {
      try {
        const [state, waitMs] = (await budget.run(CLAIM_PROBE_SCRIPT, budget.outageKeys, [
          budget.leaseMs,
        ])) as [number, number];
        if (state === 0) return;
        if (state === 2 && (await this.#probe())) return;
        if (state === 1) await sleep(Math.min(waitMs, this.#pacing.pollMs), undefined, { signal });
      } catch (error) {
        if (signal.aborted) return;
        // Redis away: the dependency gate says so; this asks again.
        logger.debug({ err: errorMessage(error) }, "could not read the upstream's outage");
        await sleep(this.#pacing.pollMs, undefined, { signal }).catch(() => undefined);
      }
    }
  }

  /**
   * The probe this process claimed; true when the upstream answered and the outage ended. A probe
   * that never reached it (the budget's pause too long, Redis away) proves nothing: its lease is
   * let go, and it is tried again.
   */
  async #probe(): Promise<boolean> {
    const { budget, logger, probe } = this.#options;
    let problem: string | null = null;
    try {
      await probe();
    } catch (error) {
      const sign = healthSignOf(error);
      if (sign === "failed") problem = errorMessage(error);
      else if (
        error instanceof RateLimitWaitTooLongError ||
        (sign === null && !isUpstreamAnswer(error))
      ) {
        await budget.redis.del(budget.outageKeys[1]);
        return false;
      }
    }
    if (problem !== null) {
      const factor = 0.75 + Math.random() / 2;
      const at = Number(
        await budget.run(PROBE_FAILED_SCRIPT, budget.outageKeys, [
          this.#pacing.maxMs,
          problem,
          factor,
        ]),
      );
      logger.info(
        { problem, nextProbeAt: new Date(at).toISOString() },
        "the upstream is still down",
      );
      return false;
    }
    const ended = (await budget.run(UP_SCRIPT, budget.outageKeys, [])) as [number, number] | null;
    if (ended) {
      const [since, probes] = ended;
      this.#notify("ended", new Date(since), probes);
      logger.info(
        {
          since: new Date(since).toISOString(),
          downSeconds: Math.round((Date.now() - since) / 1000),
          probes: probes + 1,
        },
        "the upstream answers again: resuming",
      );
    }
    return true;
  }

  #notify<E extends keyof OutageEvents>(event: E, ...args: OutageEvents[E]): void {
    for (const listener of this.#listeners[event]) {
      try {
        listener(...args);
      } catch (error) {
        this.#options.logger.error({ err: errorMessage(error) }, "an outage listener failed");
      }
    }
  }
}

/**
 * The outage of `budget`'s upstream, read from its hash as the scripts keep it (outage-scripts.ts);
 * null when there is none.
 */
export async function outageStanding(budget: RequestBudget): Promise<OutageStanding | null> {
  const hash = await budget.redis.hgetall(budget.outageKeys[0]);
  if (hash.since === undefined) return null;
  const time = (value: string | undefined) =>
    value === undefined ? null : new Date(Number(value));
  return {
    since: new Date(Number(hash.since)),
    probes: Number(hash.probes ?? 0),
    lastProbeAt: time(hash.last_probe_at),
    nextProbeAt: time(hash.probe_at),
    problem: hash.problem ?? "",
  };
}

/** One line of an outage, for /readyz and etl status. */
export function outageText(standing: OutageStanding): string {
  const probes =
    standing.lastProbeAt === null
      ? "not probed yet"
      : `${standing.probes} probes failed, the last at ${standing.lastProbeAt.toISOString()}`;
  const next = standing.nextProbeAt ? `, next at ${standing.nextProbeAt.toISOString()}` : "";
  return `the upstream is down since ${standing.since.toISOString()} (${standing.problem}); ${probes}${next}`;
}
