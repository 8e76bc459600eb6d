import { Redis } from "ioredis";
import type { CurrentRate, ProbePace, RateChange, RequestRate } from "../../src/http/auto-rate.js";
import { heedAnswer, ProbeAsks } from "../../src/http/rate-feedback.js";
import type { ResponseHeaders } from "../../src/http/rate-limit-headers.js";
import { type Lease, RequestBudget } from "../../src/http/request-budget.js";
import type { SandboxKnobs } from "../../sandbox/interfaces.js";
import {
  RateLimiter,
  rateLimitHeaders,
  tooManyRequestsHeaders,
} from "../../sandbox/rate-limiter.js";
import { deleteKeysWithPrefix, REDIS_URL, uniquePrefix } from "./redis.js";

// The request budget's rate learning on a clock the test steps: callers spread over processes
// (each a RequestBudget sharing Redis, with its own ProbeAsks, as worker processes are) ask for
// slots, and an upstream made of the sandbox's own rate limiter and headers answers each request
// `latencyMs` later; every answer goes through what HttpClient does with it (rate-feedback.ts).
// Time moves from one event to the next, so a minute of probing runs in a second or two of a busy
// machine, and what is counted (requests and 429s per upstream second, the learned rates) is the
// same on any machine.

/** The simulated upstream's limit, counted and stated as the sandbox's knobs say. */
export interface SimulatedLimit {
  readonly requestsPerSecond: number;
  readonly headers: SandboxKnobs["rateLimitHeaders"];
  readonly window?: SandboxKnobs["rateLimitWindow"];
}

export interface SimulationOptions {
  readonly label: string;
  readonly rate: RequestRate;
  readonly limit: SimulatedLimit;
  /** Worker processes sharing the budget; default 1. */
  readonly processes?: number;
  /** Requests waiting on the budget at any time, spread over the processes; default 4. */
  readonly callers?: number;
  readonly maxConcurrency?: number;
  /** From a request's arrival to its answer; default 20 ms. */
  readonly latencyMs?: number;
  readonly probe?: ProbePace;
}

/** A change of the shared rate, when (simulated ms since the start) and by which process. */
export interface TimedChange extends RateChange {
  readonly at: number;
  readonly process: number;
}

/** What the upstream counted and the budget learned over a stretch of simulated time. */
export interface Stretch {
  /** Requests that reached the upstream, 429s included, per simulated second from the start. */
  readonly perSecond: readonly number[];
  /** 429s per simulated second from the start. */
  readonly rateLimitedPerSecond: readonly number[];
  readonly requests: number;
  readonly rateLimited: number;
  /** Changes of the shared rate, in order. */
  readonly changes: readonly TimedChange[];
}

export interface RateSimulation {
  /** Simulated ms since the start. */
  readonly elapsedMs: () => number;
  /** Runs `seconds` of simulated time; counts only what happened in them. */
  run(seconds: number): Promise<Stretch>;
  /** The upstream's limit changes from now on. */
  setLimit(limit: Partial<SimulatedLimit>): void;
  /** The rate each process's budget reads now. */
  currentRates(): Promise<CurrentRate[]>;
  close(): Promise<void>;
}

/** Where simulated time starts: the turn of an epoch second, as any is. */
const START_MS = 1_800_000_000_000;
/** A caller that found every slot taken asks again this much later (the budget's own poll). */
const LEASE_POLL_MS = 10;
const REQUEST = {
  operation: "catalogue.getTerritories",
  method: "GET",
  path: "/api/v1/getDsps/all",
};

interface Caller {
  readonly process: number;
  /** When it next asks for a slot; null while its request is out. */
  askAt: number | null;
}

interface Answer {
  readonly at: number;
  readonly caller: Caller;
  readonly lease: Lease;
  readonly status: number;
  readonly headers: ResponseHeaders;
}

export function startRateSimulation(options: SimulationOptions): RateSimulation {
  const redis = new Redis(REDIS_URL);
  const prefix = uniquePrefix(`rate-sim-${options.label}`);
  let now = START_MS;
  const clock = () => now;
  const processes = Array.from({ length: options.processes ?? 1 }, () => ({
    budget: new RequestBudget({
      redis,
      keyPrefix: prefix,
      apiUrl: "http://upstream.simulated",
      apiKey: "simulated-key",
      requestsPerSecond: options.rate,
      maxConcurrency: options.maxConcurrency ?? 4,
      leaseMs: 60_000,
      maxPauseMs: 120_000,
      clock,
      ...(options.probe ? { probe: options.probe } : {}),
    }),
    asks: new ProbeAsks(clock),
  }));
  const callers: Caller[] = Array.from({ length: options.callers ?? 4 }, (_, i) => ({
    process: i % processes.length,
    askAt: START_MS,
  }));
  const latencyMs = options.latencyMs ?? 20;
  const limiter = new RateLimiter();
  let limit: SimulatedLimit = options.limit;
  const answers: Answer[] = [];

  /** The upstream's answer to a request arriving now, as the sandbox's pipeline makes it. */
  function answerTo(caller: Caller, lease: Lease): Answer {
    const window = limit.window ?? "second";
    const decision = limiter.take(limit.requestsPerSecond, now, window);
    const at = now + latencyMs;
    if (!decision.allowed) {
      const headers = tooManyRequestsHeaders(decision, limit.headers, now);
      return { at, caller, lease, status: 429, headers: strings(headers) };
    }
    return {
      at,
      caller,
      lease,
      status: 200,
      headers: strings(rateLimitHeaders(decision, limit.headers)),
    };
  }

  async function heed(answer: Answer, changes: TimedChange[]): Promise<void> {
    const { budget, asks } = processes[answer.caller.process] as (typeof processes)[number];
    const { note } = await heedAnswer(budget, answer.lease, answer, now, {
      fallbackPauseMs: 1000,
      maxPauseMs: Number.POSITIVE_INFINITY,
      mayProbe: () => asks.due(),
    });
    if (note) changes.push({ ...note.change, at: now - START_MS, process: answer.caller.process });
    await answer.lease.release();
    answer.caller.askAt = now;
  }

  async function ask(caller: Caller, count: (answer: Answer) => void): Promise<void> {
    const { budget } = processes[caller.process] as (typeof processes)[number];
    const taken = await budget.tryAcquire(REQUEST);
    if ("release" in taken) {
      const answer = answerTo(caller, taken);
      count(answer);
      answers.push(answer);
      caller.askAt = null;
    } else {
      caller.askAt = now + (taken.waitMs < 0 ? LEASE_POLL_MS : Math.max(1, taken.waitMs));
    }
  }

  return {
    elapsedMs: () => now - START_MS,
    async run(seconds) {
      const end = now + seconds * 1000;
      const perSecond: number[] = [];
      const rateLimitedPerSecond: number[] = [];
      const changes: TimedChange[] = [];
      const count = (answer: Answer) => {
        const second = Math.floor((now - START_MS) / 1000);
        perSecond[second] = (perSecond[second] ?? 0) + 1;
        if (answer.status === 429) {
          rateLimitedPerSecond[second] = (rateLimitedPerSecond[second] ?? 0) + 1;
        }
      };
      for (;;) {
        // Answers before asks at the same instant: a slot freed is free for the next ask.
        const answer = answers.reduce<Answer | null>((a, b) => (a && a.at <= b.at ? a : b), null);
        const caller = callers.reduce<Caller | null>(
          (a, b) => (b.askAt === null || (a && (a.askAt as number) <= b.askAt) ? a : b),
          null,
        );
        const next = Math.min(answer?.at ?? Infinity, caller?.askAt ?? Infinity);
        if (next >= end) break;
        now = next;
        if (answer && answer.at === next) {
          answers.splice(answers.indexOf(answer), 1);
          await heed(answer, changes);
        } else if (caller) await ask(caller, count);
      }
      now = end;
      const fromSecond = (list: number[]) =>
        Array.from({ length: Math.ceil((end - START_MS) / 1000) }, (_, s) => list[s] ?? 0);
      const all = fromSecond(perSecond);
      const limited = fromSecond(rateLimitedPerSecond);
      const firstSecond = all.length - seconds;
      return {
        perSecond: all.slice(firstSecond),
        rateLimitedPerSecond: limited.slice(firstSecond),
        requests: all.reduce((sum, n) => sum + n, 0),
        rateLimited: limited.reduce((sum, n) => sum + n, 0),
        changes,
      };
    },
    setLimit(patch) {
      limit = { ...limit, ...patch };
    },
    currentRates: () => Promise.all(processes.map(({ budget }) => budget.currentRate())),
    async close() {
      redis.disconnect();
      await deleteKeysWithPrefix(prefix);
    },
  };
}

function strings(headers: Record<string, number>): ResponseHeaders {
  return Object.fromEntries(
    Object.entries(headers).map(([name, value]) => [name.toLowerCase(), String(value)]),
  );
}
