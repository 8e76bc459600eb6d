import { once } from "node:events";
import type { Redis } from "ioredis";
import { withTimeout } from "../async/with-timeout.js";
import { errorMessage } from "../errors.js";
import type { Logger } from "../logging/logger.js";
import { DeferredRecords } from "./deferred-records.js";
import { type Gate, GateEvents, type GateListener, ProbeTimer } from "./gate.js";
import { redisCheck } from "../operator/health-checks.js";
import pg from "pg";
import type { Warehouse } from "../warehouse/database.js";
import { isMissingDatabase } from "../warehouse/missing-database.js";
import { pgConnectionConfig } from "../warehouse/pg-connection-config.js";

export type DependencyName = "postgres" | "redis";

export interface DependencyGateOptions {
  /** One light request to each dependency: resolves when it answers. */
  readonly probes: Readonly<Record<DependencyName, () => Promise<void>>>;
  /** Where each dependency is, for messages (host and port, no credentials). */
  readonly where: Readonly<Record<DependencyName, string>>;
  readonly logger: Logger;
  /** The longest wait between two probes while a dependency is away. */
  readonly recheckMs?: number;
  /** A probe that has not answered by then counts as no answer. */
  readonly probeTimeoutMs?: number;
  /** Releases what the probes hold, once the gate stops. */
  readonly onStop?: () => void;
}

/** What the worker last found of one dependency. */
export interface DependencyStanding {
  readonly name: DependencyName;
  readonly up: boolean;
  /** Since when it has been as it is (up or away); null until first probed. */
  readonly since: Date | null;
  readonly problem: string | null;
}

const FIRST_RECHECK_MS = 1_000;
const DEFAULT_RECHECK_MS = 15_000;
const DEFAULT_PROBE_TIMEOUT_MS = 5_000;
const NAMES: readonly DependencyName[] = ["postgres", "redis"];

/**
 * Whether the worker's own dependencies, Postgres and Redis, answer, as last found. A job cannot
 * do its work without them, and a job that fails for want of them would spend an attempt on an
 * outage (its failure not even recorded): so while one is away the gate is closed, the worker
 * takes no job (they stay queued, attempts unspent), and jobs cut short are handed back. Records
 * that could not be written meanwhile are kept and written once both answer again. The gate
 * starts closed: a worker takes work once a first probe finds both.
 */
export class DependencyGate implements Gate {
  readonly name = "dependencies";
  readonly #options: DependencyGateOptions;
  readonly #events: GateEvents;
  readonly #standing = new Map<DependencyName, DependencyStanding>(
    NAMES.map((name) => [name, { name, up: false, since: null, problem: null }]),
  );
  readonly #deferred: DeferredRecords;
  readonly #timer = new ProbeTimer(() => void this.probe());
  #open = false;
  #probing: Promise<boolean> | null = null;
  /** The probe the callers that came while one was under way share, begun once it ends. */
  #queued: Promise<boolean> | null = null;

  constructor(options: DependencyGateOptions) {
    this.#options = options;
    this.#events = new GateEvents(this.name, options.logger);
    this.#deferred = new DeferredRecords(options.logger);
  }

  /** Called when the gate opens (both answer) and when a dependency found away closes it. */
  on(event: "close" | "open", listener: GateListener): void {
    this.#events.on(event, listener);
  }

  get open(): boolean {
    return this.#open;
  }

  /** Each dependency as last found, for /metrics. */
  standings(): DependencyStanding[] {
    return NAMES.map((name) => this.#get(name));
  }

  /**
   * Probes both, begun after the call; true when both answer. A probe already under way may have
   * looked before the caller's reason to ask (a job that failed just now as Postgres went away):
   * the callers that come meanwhile share one probe begun once it ends. A dependency found away
   * closes the gate, which then probes again with backoff until both answer.
   */
  probe(): Promise<boolean> {
    if (!this.#probing) return this.#startProbe();
    const next = () => {
      this.#queued = null;
      return this.#probing ?? this.#startProbe();
    };
    this.#queued ??= this.#probing.then(next, next);
    return this.#queued;
  }

  #startProbe(): Promise<boolean> {
    this.#probing = this.#probeAll().finally(() => {
      this.#probing = null;
    });
    return this.#probing;
  }

  /**
   * Resolves once both answer, probing with backoff meanwhile (each wait logged, naming the
   * dependency and where it is); rejects if `signal` aborts first.
   */
  async waitUntilOpen(signal: AbortSignal): Promise<void> {
    if (await this.probe()) return;
    // A stop that came during the probe has already fired its event.
    signal.throwIfAborted();
    await new Promise<void>((resolve, reject) => {
      const stop = () =>
        reject(signal.reason instanceof Error ? signal.reason : new Error("stopped"));
      signal.addEventListener("abort", stop, { once: true });
      this.on("open", () => {
        signal.removeEventListener("abort", stop);
        resolve();
      });
    });
  }

  /**
   * Keeps a record that could not be written (Postgres away): it is written once the gate opens
   * again, in the order kept.
   */
  defer(record: () => Promise<void>): void {
    this.#deferred.add(record);
  }

  /** How many records wait to be written. */
  get deferred(): number {
    return this.#deferred.size;
  }

  /**
   * For /readyz: probes (sharing a probe under way), then rejects while `name` does not answer,
   * saying where it is and since when.
   */
  async health(name: DependencyName): Promise<void> {
    await this.probe();
    const standing = this.#get(name);
    if (standing.up) return;
    const where = `${name} at ${this.#options.where[name]}`;
    throw new Error(
      standing.since === null
        ? `${where} not reached yet: ${standing.problem ?? "no answer"}`
        : `${where} unreachable since ${standing.since.toISOString()}: ${standing.problem ?? "no answer"} (taking no jobs)`,
    );
  }

  /** Stops probing (the worker is stopping); records still deferred are tried once more. */
  async stop(): Promise<void> {
    this.#timer.stop();
    await this.#probing;
    await this.#deferred.write();
    this.#options.onStop?.();
  }

  #get(name: DependencyName): DependencyStanding {
    return this.#standing.get(name) ?? { name, up: false, since: null, problem: null };
  }

  async #probeAll(): Promise<boolean> {
    const timeoutMs = this.#options.probeTimeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS;
    const results = await Promise.all(
      NAMES.map(async (name) => {
        try {
          await withTimeout(this.#options.probes[name], timeoutMs);
          return { name, problem: null };
        } catch (error) {
          return { name, problem: errorMessage(error) };
        }
      }),
    );
    this.#timer.probed();
    for (const { name, problem } of results) this.#note(name, problem);
    const allUp = results.every((r) => r.problem === null);
    if (!allUp) this.#closeGate();
    else if (!this.#open) await this.#reopen();
    else {
      // A record deferred while the gate stayed open (a write that failed alone) waits no
      // longer than the next probe.
      await this.#deferred.write();
      this.#schedule();
    }
    return allUp && this.#open;
  }

  #note(name: DependencyName, problem: string | null): void {
    const before = this.#get(name);
    const up = problem === null;
    if (before.up === up && before.since !== null) {
      if (!up) this.#standing.set(name, { ...before, problem });
      return;
    }
    this.#standing.set(name, { name, up, since: new Date(), problem });
    const where = this.#options.where[name];
    if (up) {
      // Found up at the first look: it was never lost, and an operator is told nothing.
      if (before.since !== null) {
        this.#options.logger.info({ dependency: name, where }, `${name} answers again`);
      }
    } else {
      this.#options.logger.error(
        { dependency: name, where, err: problem },
        `${name} at ${where} does not answer: taking no jobs until it does`,
      );
    }
  }

  #closeGate(): void {
    const wasOpen = this.#open;
    this.#open = false;
    if (wasOpen) {
      // The open gate's next probe was far off: the backoff starts again from a second.
      this.#timer.reset();
      this.#events.notify("close");
    }
    this.#schedule();
  }

  async #reopen(): Promise<void> {
    // Records of attempts cut short come before new work, so status is true before jobs run.
    if (!(await this.#deferred.write())) return this.#schedule();
    this.#open = true;
    this.#timer.reset();
    this.#schedule();
    this.#events.notify("open");
  }

  /** The next probe: every recheckMs while open (an idle worker notices an outage too). */
  #schedule(): void {
    const recheckMs = this.#options.recheckMs ?? DEFAULT_RECHECK_MS;
    this.#timer.after(this.#open ? recheckMs : this.#timer.backoffMs(FIRST_RECHECK_MS, recheckMs));
  }
}

/**
 * The gate of a worker writing to `db` and queueing in the Redis of `redis`: its probes are a
 * `select 1` and a PING on a connection of its own that fails at once while Redis is away
 * (BullMQ's queues commands while disconnected, so a probe on it would only time out).
 */
export function dependencyGateOf(options: {
  readonly db: Warehouse;
  readonly redis: Redis;
  readonly databaseUrl: string;
  readonly redisUrl: string;
  readonly logger: Logger;
}): DependencyGate {
  const probe = options.redis.duplicate({
    lazyConnect: false,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
  });
  probe.on("error", () => undefined);
  const gate = new DependencyGate({
    logger: options.logger,
    where: { postgres: hostOf(options.databaseUrl), redis: hostOf(options.redisUrl) },
    probes: {
      postgres: () => serverAnswers(options.databaseUrl),
      redis: () => redisAnswers(probe),
    },
    onStop: () => probe.disconnect(),
  });
  return gate;
}

/**
 * Resolves when Redis answers a PING on the probe's connection. Its first connection, made as the
 * worker starts, is waited for (a refused one fails at once): probed before it is up, the PING
 * would fail, and every start would report Redis lost. Later, while it reconnects, a PING fails
 * at once, as a probe of a Redis that is away must.
 */
async function redisAnswers(probe: Redis): Promise<void> {
  if (probe.status === "connecting" || probe.status === "connect") await once(probe, "ready");
  await redisCheck(probe);
}

/**
 * Resolves when the Postgres server answers: a database that does not exist is an answer (the
 * worker then stops, naming it: only migrate creates one), not an outage to wait out.
 */
async function serverAnswers(url: string): Promise<void> {
  // A connection of its own: the jobs' pool may be busy, and a probe waiting for it would
  // take a loaded worker for one whose Postgres is away.
  const client = new pg.Client({ ...pgConnectionConfig(url), connectionTimeoutMillis: 5_000 });
  client.on("error", () => undefined);
  try {
    await client.connect();
    await client.query("select 1");
  } catch (error) {
    if (!isMissingDatabase(error)) throw error;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** host:port of a connection URL: where a dependency is, with no credential. */
function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return "(invalid URL)";
  }
}
