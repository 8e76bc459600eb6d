import { createHash, randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import type { Redis } from "ioredis";
import { RateLimitWaitTooLongError, UpstreamDownError } from "./upstream-errors.js";
import {
  type AutoRate,
  type CurrentRate,
  PROBE_PACE,
  type ProbePace,
  type RateChange,
  type RequestRate,
} from "./auto-rate.js";
import { ACQUIRE_SCRIPT, PAUSE_SCRIPT, type RedisScript } from "./budget-scripts.js";
import { RELEASE_NOTING_SCRIPT } from "./outage-scripts.js";
import { LearnedRate } from "./learned-rate.js";
import { type HealthSign, OUTAGE_RULE, type OutageRule } from "./upstream-health.js";

export interface RequestBudgetOptions {
  readonly redis: Redis;
  /** Prefix of every Redis key (the app's `redis_prefix`). */
  readonly keyPrefix: string;
  /** Who shares the budget: the upstream and credential, hashed so the key never reaches Redis. */
  readonly apiUrl: string;
  readonly apiKey: string;
  /** A fixed rate, or "auto": its start until the upstream's answers say otherwise. */
  readonly requestsPerSecond: RequestRate;
  /** How probing paces itself (default PROBE_PACE); shorter in tests. */
  readonly probe?: ProbePace;
  readonly maxConcurrency: number;
  /** A crashed process's slot frees itself after this long: longer than any request may take. */
  readonly leaseMs: number;
  /** Refuse to wait longer than this for an upstream-imposed pause. */
  readonly maxPauseMs: number;
  /** When the releases' health signs trip the outage (default OUTAGE_RULE). */
  readonly outageRule?: OutageRule;
  /**
   * The time the budget decides by, in epoch ms; default Redis's clock, which every process
   * sharing the budget agrees on. Tests step a clock of their own and ask with tryAcquire.
   */
  readonly clock?: () => number;
}

export interface RequestIdentity {
  readonly operation: string;
  readonly method: string;
  readonly path: string;
  /** The entity the request is about ("artist_id 9999999"), when its parameters name one. */
  readonly subject?: string;
}

/**
 * A try at a slot that found none: ask again in `waitMs` (-1: once a lease frees); `down`: the
 * upstream is declared down, and nothing but the outage's probe is sent (see UpstreamOutage).
 */
export interface Wait {
  readonly waitMs: number;
  readonly down?: true;
}

export interface Lease {
  /** When the slot was granted, in epoch ms on the budget's clock (Redis's, unless a clock is given). */
  readonly grantedAt: number;
  /**
   * Frees the slot, noting what the try said of the upstream's health (null: nothing) among
   * the latest signs every process shares. True when this failure tripped the outage rule: the caller
   * declares the upstream down (UpstreamOutage).
   */
  release(health?: HealthSign): Promise<boolean>;
}

/**
 * The upstream counts per second on its own clock and receives our requests a little after we
 * take a slot; a window slightly longer than a second keeps any one of its seconds within R.
 */
export const WINDOW_MARGIN_MS = 50;
/**
 * Poll interval while every concurrency slot is taken, for slots held by other processes: a lease
 * released by this process wakes its waiter at once.
 */
const LEASE_POLL_MS = 10;

/**
 * The requests per second the budget sustains at `requestsPerSecond`, the pace a long run keeps:
 * floor(R) sends per window of 1000 ms + WINDOW_MARGIN_MS (R ≥ 1), or one per ceil(1000/R) ms +
 * WINDOW_MARGIN_MS (R < 1); about R / 1.05. The arithmetic of WINDOW_TEXT (budget-scripts.ts), the
 * window the budget enforces in Redis: they change together. The spacing of sends (1/R) never
 * slows it further: a window's sends, 1/R apart, fit in less than the window.
 */
export function sustainedRequestsPerSecond(requestsPerSecond: number): number {
  const perWindow = Math.max(1, Math.floor(requestsPerSecond));
  const windowMs =
    (requestsPerSecond < 1 ? Math.ceil(1000 / requestsPerSecond) : 1000) + WINDOW_MARGIN_MS;
  return (perWindow * 1000) / windowMs;
}

/**
 * A request budget shared through Redis by every process using the same upstream and key: at most
 * `requestsPerSecond` sends in any window of a second, at most `maxConcurrency` in flight, and
 * nobody sends while the upstream has asked us to pause. With "auto" the rate lives in Redis too,
 * so what one process learns of the upstream's limit paces every process's next request.
 */
export class RequestBudget {
  /** Who shares the budget (a hash of the upstream's URL and key), naming its keys in Redis. */
  readonly sharedBy: string;
  /** Where the budget lives, for what shares it (UpstreamOutage). */
  readonly redis: Redis;
  /** How long a slot may be held: a probe's lease too. */
  readonly leaseMs: number;
  readonly #options: RequestBudgetOptions;
  readonly #keys: readonly [string, string, string, string, string, string];
  /** The outage's hash, its probe's lease, the latest health signs; the acquire's 6th key first. */
  readonly outageKeys: readonly [string, string, string];
  /** The leases, the latest health signs every release notes in, and the outage. */
  readonly #releaseKeys: readonly [string, string, string];
  /** With "auto", its bounds; null: a fixed rate. */
  readonly #auto: AutoRate | null;
  /** The configured rate, or with "auto" the rate until one is learned. */
  readonly #rate: number;
  readonly #learned: LearnedRate;
  /** One acquirer per process talks to Redis at a time; the others queue here, in order. */
  #queue: Promise<void> = Promise.resolve();
  /** Woken when this process releases a lease. */
  readonly #waiting = new Set<() => void>();
  /** Leases this process holds: when they are all the slots, only its own releases free one. */
  #held = 0;

  constructor(options: RequestBudgetOptions) {
    this.#options = options;
    this.redis = options.redis;
    this.leaseMs = options.leaseMs;
    this.sharedBy = createHash("sha256")
      .update(`${options.apiUrl}\n${options.apiKey}`)
      .digest("hex")
      .slice(0, 16);
    const base = `${options.keyPrefix}budget:${this.sharedBy}:`;
    this.outageKeys = [`${base}outage`, `${base}probe`, `${base}health`];
    this.#releaseKeys = [`${base}leases`, this.outageKeys[2], this.outageKeys[0]];
    this.#keys = [
      `${base}sent`,
      `${base}leases`,
      `${base}pause`,
      `${base}rate`,
      `${base}demand`,
      this.outageKeys[0],
    ];
    const rate = options.requestsPerSecond;
    this.#auto = typeof rate === "number" ? null : rate;
    this.#rate = typeof rate === "number" ? rate : rate.start;
    this.#learned = new LearnedRate({
      auto: this.#auto,
      rate: this.#rate,
      probe: options.probe ?? PROBE_PACE,
      keys: [this.#keys[3], this.#keys[4]],
      redis: options.redis,
      run: (script, keys, args) => this.run(script, keys, args),
    });
  }

  /**
   * One try at a slot: the lease, or how long to wait before the next try. Throws when the
   * upstream asked for a pause longer than maxPauseMs. `probe`: the outage's probe, the one
   * request sent while the upstream is declared down.
   */
  async tryAcquire(request: RequestIdentity, probe = false): Promise<Lease | Wait> {
    const token = randomUUID();
    const { maxConcurrency, leaseMs, maxPauseMs } = this.#options;
    const [state, ms] = (await this.run(ACQUIRE_SCRIPT, this.#keys, [
      this.#rate,
      this.#auto ? 1 : 0,
      WINDOW_MARGIN_MS,
      maxConcurrency,
      leaseMs,
      token,
      this.#auto?.max ?? 0,
      probe ? 1 : 0,
    ])) as [number, number];
    if (state === 2 && ms > maxPauseMs) {
      throw new RateLimitWaitTooLongError(request, ms, maxPauseMs);
    }
    if (state === 3) return { waitMs: 0, down: true };
    if (state !== 1) return { waitMs: ms };
    this.#held += 1;
    let held = true;
    return {
      grantedAt: ms,
      release: async (health = null) => {
        if (!held) return false;
        held = false;
        this.#held -= 1;
        const { latest, failures, maxAgeMs } = this.#options.outageRule ?? OUTAGE_RULE;
        const sign = health === null ? "" : health === "failed" ? "f" : "h";
        const tripped = this.run(RELEASE_NOTING_SCRIPT, this.#releaseKeys, [
          token,
          sign,
          latest,
          failures,
          maxAgeMs,
        ]);
        // Woken once the release is sent, not answered: Redis runs one connection's commands in
        // order, so a waiter's try, sent after it, finds the slot free, and the slot idles one
        // round trip less per request. (Should Redis have lost the script, its text is sent again
        // after the try, which then tries again LEASE_POLL_MS later.)
        for (const wake of this.#waiting) wake();
        return Number(await tripped) === 1;
      },
    };
  }

  /**
   * Waits for a slot (in order with the other callers of this process) and takes it. Throws
   * UpstreamDownError while the upstream is declared down, unless this is the outage's `probe`.
   */
  async acquire(request: RequestIdentity, signal?: AbortSignal, probe = false): Promise<Lease> {
    const previous = this.#queue;
    let done!: () => void;
    this.#queue = new Promise<void>((resolve) => {
      done = resolve;
    });
    try {
      await abortable(previous, signal);
      return await this.#take(request, signal, probe);
    } finally {
      // Whoever queued behind us may go only after our predecessor has, even if we were aborted.
      void previous.then(done);
    }
  }

  /** Every process waits `ms` before its next send (after a 429 or an exhausted window). */
  async pause(ms: number): Promise<void> {
    await this.run(PAUSE_SCRIPT, [this.#keys[2]], [Math.max(0, Math.ceil(ms))]);
  }

  /**
   * The upstream stated its limit (requests per second). With "auto" it becomes the rate of every
   * process sharing the budget, up to the ceiling, and probing stops; a fixed rate ignores it.
   */
  setLimit(requestsPerSecond: number): Promise<RateChange | null> {
    return this.#learned.setLimit(requestsPerSecond);
  }

  /** The upstream refused `lease`'s request with 429 without stating its limit (LearnedRate). */
  slowDown(lease: Lease): Promise<RateChange | null> {
    return this.#learned.slowDown(lease.grantedAt);
  }

  /** `lease`'s request succeeded without the upstream stating its limit (LearnedRate). */
  speedUp(lease: Lease): Promise<RateChange | null> {
    return this.#learned.speedUp(lease.grantedAt);
  }

  /** The rate the budget allows now: the configured one, or with "auto" the learned one. */
  currentRate(): Promise<CurrentRate> {
    return this.#learned.current();
  }

  async #take(request: RequestIdentity, signal: AbortSignal | undefined, probe: boolean) {
    for (;;) {
      signal?.throwIfAborted();
      // While every slot is this process's, only one of its own releases frees one: asking Redis
      // before then would cost a round trip per request for a refusal.
      if (this.#held < this.#options.maxConcurrency) {
        const taken = await this.tryAcquire(request, probe);
        if ("release" in taken) return taken;
        if (taken.down) throw new UpstreamDownError(request.operation);
        if (taken.waitMs >= 0) {
          await sleep(taken.waitMs, undefined, { signal });
          continue;
        }
      }
      await this.#leaseReleased(this.#held < this.#options.maxConcurrency, signal);
    }
  }

  /** A script run with the budget's now last (see NOW_TEXT): the clock's, or 0 for Redis's. */
  run(script: RedisScript, keys: readonly string[], args: readonly (string | number)[]) {
    return script.run(this.#options.redis, keys, [...args, this.#options.clock?.() ?? 0]);
  }

  /**
   * Until this process releases a lease; when others hold slots too, at most LEASE_POLL_MS (their
   * releases are not told), else at most a lease's length (by then one of its own has ended).
   */
  async #leaseReleased(othersHoldSlots: boolean, signal?: AbortSignal): Promise<void> {
    const released = new AbortController();
    const wake = () => released.abort();
    this.#waiting.add(wake);
    signal?.addEventListener("abort", wake, { once: true });
    try {
      const waitMs = othersHoldSlots ? LEASE_POLL_MS : this.#options.leaseMs;
      await sleep(waitMs, undefined, { signal: released.signal });
    } catch (error) {
      if (!released.signal.aborted) throw error;
    } finally {
      this.#waiting.delete(wake);
      signal?.removeEventListener("abort", wake);
    }
    signal?.throwIfAborted();
  }
}

function abortable(promise: Promise<void>, signal?: AbortSignal): Promise<void> {
  if (!signal) return promise;
  signal.throwIfAborted();
  return new Promise<void>((resolve, reject) => {
    const onAbort = () => {
      reject(signal.reason as Error);
    };
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, reject);
  });
}
