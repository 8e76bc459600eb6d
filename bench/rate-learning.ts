import { beyondOneStep, type CurrentRate } from "../src/http/auto-rate.js";
import { type SandboxKnobs, startSandbox } from "../sandbox/index.js";
import { runBudgetClient } from "../test/helpers/cli.js";
import { deleteKeysWithPrefix, uniquePrefix } from "../test/helpers/redis.js";
import { makeTempDir } from "../test/helpers/temp-dir.js";
import { startUpstream, type Upstream } from "../test/helpers/upstream.js";
import {
  type Driven,
  drive,
  learnedRates,
  longestRateLimitedRun,
  mostInOneSecond,
  rateLimitedFrom,
  secondsUntil,
} from "./rate-drive.js";
import { atLeast, atMost, type Figure, round, type SectionResult, type Target } from "./report.js";

const LATENCY_MS = 20;
/** The limit the upstreams that say nothing of theirs were seen to allow. */
const UNSTATED = 12;
/** Probing from 2 req/s reaches 12 in some 14 s; from 20 s on, the rate found is what runs. */
const PROBE_SETTLE_S = 20;
const PROBE_MEASURE_S = 10;

/** What one scenario adds to the section. */
interface Measured {
  readonly figures: readonly Figure[];
  readonly targets: readonly Target[];
}

/**
 * A sandbox in this process limited to `limit` req/s, and the project's client stack against it
 * with `requests_per_second` `rate`, closed (keys in Redis included) once `run` is done.
 */
async function withUpstream<T>(
  label: string,
  knobs: Partial<SandboxKnobs> & { readonly requestsPerSecond: number },
  rate: unknown,
  run: (upstream: Upstream) => Promise<T>,
): Promise<T> {
  const upstream = await startUpstream(`bench-rate-${label}`, {
    sandbox: { knobs: { latencyMs: LATENCY_MS, ...knobs } },
    etl: { requests_per_second: rate, max_concurrency: 4 },
  });
  try {
    return await run(upstream);
  } finally {
    await upstream.close();
  }
}

function rateInForce(rate: CurrentRate): string {
  return `${round(rate.requestsPerSecond, 2)} (${rate.source})`;
}

/** The figures every driven scenario reports: what was sent, and how the rate was found. */
function drivenFigures(what: string, driven: Driven, settleS: number): Figure[] {
  return [
    { name: `${what}: requests / 429s`, value: `${driven.requests} / ${driven.rateLimited}` },
    { name: `${what}: learned rates in turn`, value: learnedRates(driven), unit: "req/s" },
    {
      name: `${what}: rate over the measured seconds (after ${settleS} s)`,
      value: round(driven.measuredRate, 2),
      unit: "req/s",
    },
  ];
}

/** "auto" where every answer states the limit: two stacks share it and run just under it. */
async function stated(limit: number): Promise<Measured> {
  return withUpstream(
    `stated-${limit}`,
    { requestsPerSecond: limit, rateLimitHeaders: "retry-after" },
    "auto",
    async (upstream) => {
      const stacks = [upstream.context, await upstream.connectAnother()];
      const driven = await drive(upstream, { stacks, settleS: 2, measureS: 10 });
      const rates = await Promise.all(stacks.map((stack) => stack.budget.currentRate()));
      const what = `auto, ${limit} stated, two stacks`;
      return {
        figures: [
          ...drivenFigures(what, driven, 2),
          {
            name: `${what}: rate in force at the end`,
            value: rates.map(rateInForce).join(" / "),
            unit: "req/s",
          },
        ],
        targets: [
          atLeast(`${what}: rate ÷ ${limit}`, driven.measuredRate / limit, 0.9),
          atMost(`${what}: rate ÷ ${limit}`, driven.measuredRate / limit, 1),
          atMost(`${what}: 429s after settling`, rateLimitedFrom(driven, driven.measuredFrom), 0),
        ],
      };
    },
  );
}

/** The limit stated on 429s alone: probing earns one, and the rate stays at what it said. */
async function statedOn429(): Promise<Measured> {
  const limit = 8;
  return withUpstream(
    "on-429",
    { requestsPerSecond: limit, rateLimitHeaders: "on-429" },
    "auto",
    async (upstream) => {
      const driven = await drive(upstream, { settleS: 14, measureS: 6 });
      const what = `auto, ${limit} stated on 429s`;
      return {
        figures: [
          ...drivenFigures(what, driven, 14),
          {
            name: `${what}: highest rate probing reached`,
            value: Math.max(...driven.rates.map((read) => read.rate.requestsPerSecond)),
            unit: "req/s",
          },
        ],
        targets: [
          atMost(
            `${what}: seconds until the learned rate is ${limit}`,
            secondsUntil(
              driven,
              (rate) => rate.requestsPerSecond === limit && rate.source === "limit",
            ),
            14,
          ),
          atLeast(`${what}: rate ÷ ${limit}`, driven.measuredRate / limit, 0.9),
          atMost(`${what}: 429s after settling`, rateLimitedFrom(driven, driven.measuredFrom), 0),
        ],
      };
    },
  );
}

/** "auto" with a max, against an upstream that would allow six times more. */
async function ceiling(): Promise<Measured> {
  return withUpstream(
    "ceiling",
    { requestsPerSecond: 30, rateLimitHeaders: "none" },
    { auto: { max: 5 } },
    async (upstream) => {
      const driven = await drive(upstream, { settleS: 7, measureS: 5 });
      const what = "auto up to 5, 30 unstated";
      return {
        figures: drivenFigures(what, driven, 7),
        targets: [
          atMost(`${what}: most requests in one second`, mostInOneSecond(driven), 5),
          atMost(`${what}: 429s`, driven.rateLimited, 0),
        ],
      };
    },
  );
}

/** Probing for a limit never stated, as each kind of window counts it. */
async function probing(
  rateLimitHeaders: SandboxKnobs["rateLimitHeaders"],
  rateLimitWindow: SandboxKnobs["rateLimitWindow"],
): Promise<Measured> {
  const knobs = { requestsPerSecond: UNSTATED, rateLimitHeaders, rateLimitWindow };
  return withUpstream(`probe-${rateLimitWindow}`, knobs, "auto", async (upstream) => {
    const driven = await drive(upstream, { settleS: PROBE_SETTLE_S, measureS: PROBE_MEASURE_S });
    const what = `auto, ${UNSTATED} unstated (429s: ${rateLimitHeaders}, per ${rateLimitWindow})`;
    return {
      figures: drivenFigures(what, driven, PROBE_SETTLE_S),
      targets: [
        atLeast(`${what}: rate ÷ ${UNSTATED}`, driven.measuredRate / UNSTATED, 0.85),
        atMost(`${what}: 429s ÷ requests`, driven.rateLimited / driven.requests, 0.03),
        atMost(
          `${what}: seconds until the learned rate is within a step of ${UNSTATED}`,
          secondsUntil(
            driven,
            (rate) => !beyondOneStep({ from: UNSTATED, to: rate.requestsPerSecond }),
          ),
          20,
        ),
      ],
    };
  });
}

/**
 * Three stacks probing the same unstated limit, then the limit cut to a quarter for 12 s: a
 * storm of 429s, answered by every stack sending less.
 */
async function threeStacksAndStorm(): Promise<Measured> {
  const knobs = { requestsPerSecond: UNSTATED, rateLimitHeaders: "none" as const };
  return withUpstream("probe-three", knobs, "auto", async (upstream) => {
    const stacks = [
      upstream.context,
      await upstream.connectAnother(),
      await upstream.connectAnother(),
    ];
    const driven = await drive(upstream, {
      stacks,
      settleS: PROBE_SETTLE_S,
      measureS: PROBE_MEASURE_S,
    });
    const before = mostInOneSecond(driven, driven.measuredFrom);
    upstream.sandbox.setKnobs({ requestsPerSecond: 3 });
    const storm = await drive(upstream, { stacks, settleS: 0, measureS: 12 });
    const last = Math.max(...Object.keys(storm.perSecond).map(Number));
    const what = `three stacks, ${UNSTATED} unstated`;
    return {
      figures: [
        ...drivenFigures(what, driven, PROBE_SETTLE_S),
        { name: `${what}: most requests in one second, measured seconds`, value: before },
        {
          name: `${what}, cut to 3 for 12 s: requests / 429s`,
          value: `${storm.requests} / ${storm.rateLimited}`,
        },
        {
          name: `${what}, cut to 3 for 12 s: learned rates in turn`,
          value: learnedRates(storm),
          unit: "req/s",
        },
      ],
      targets: [
        atLeast(`${what}: rate ÷ ${UNSTATED}`, driven.measuredRate / UNSTATED, 0.85),
        atMost(`${what}: 429s ÷ requests`, driven.rateLimited / driven.requests, 0.03),
        atMost(`${what}: longest run of seconds with a 429`, longestRateLimitedRun(driven), 2),
        // Each 429 lowers the shared rate and pauses every stack: never faster than before it.
        atMost(
          `${what}, storm: most in one second ÷ the most before`,
          mostInOneSecond(storm) / before,
          1,
        ),
        atMost(
          `${what}, storm: lowest learned rate`,
          Math.min(...storm.rates.map((read) => read.rate.requestsPerSecond)),
          3,
        ),
        // Settled under the new limit: its last seconds pass it at most once (a probe).
        atMost(`${what}, storm: 429s in its last 5 s`, rateLimitedFrom(storm, last - 4), 2),
      ],
    };
  });
}

/** Two separate processes sharing a fixed budget through Redis, as two workers do. */
async function twoProcesses(): Promise<Measured> {
  const rate = 20;
  const perProcess = 60;
  const prefix = uniquePrefix("bench-rate-processes");
  const dir = makeTempDir("bench-rate-processes");
  // The sandbox answers 429 above the budget's rate: a budget that leaks shows as 429s too.
  const sandbox = await startSandbox({ knobs: { requestsPerSecond: rate, latencyMs: LATENCY_MS } });
  try {
    dir.write("etl.config.json", {
      start_date: "2026-01-01",
      requests_per_second: rate,
      max_concurrency: 8,
      redis_prefix: prefix,
    });
    const client = () => runBudgetClient(dir.path, sandbox, perProcess);
    await Promise.all([client(), client()]);
    const stats = sandbox.stats();
    // Whole seconds only: the first and the last are partly idle (a process still starting).
    const seconds = Object.keys(stats.perSecond)
      .map(Number)
      .sort((a, b) => a - b);
    const full = seconds.slice(1, -1).map((second) => stats.perSecond[second] ?? 0);
    const achieved = full.reduce((sum, n) => sum + n, 0) / full.length;
    const what = `two processes, fixed ${rate}`;
    return {
      figures: [
        { name: `${what}: requests / 429s`, value: `${stats.requests} / ${stats.rateLimited}` },
        { name: `${what}: rate over whole seconds`, value: round(achieved, 2), unit: "req/s" },
      ],
      targets: [
        atLeast(`${what}: rate ÷ ${rate}`, achieved / rate, 0.85),
        atMost(`${what}: most requests in one second`, stats.maxPerSecond, rate),
        atMost(`${what}: 429s`, stats.rateLimited, 0),
      ],
    };
  } finally {
    await sandbox.close();
    await deleteKeysWithPrefix(prefix);
    dir.remove();
  }
}

/**
 * 11. Rate learning on real time: the real client stacks against sandboxes in this process, each
 * scenario after the last (they measure rates). A whole sync against an unstated limit is
 * section 2's "auto, 12 unstated" backfill.
 */
export async function rateLearning(): Promise<SectionResult> {
  const measured: Measured[] = [];
  for (const scenario of [
    () => stated(3),
    () => stated(30),
    statedOn429,
    ceiling,
    () => probing("retry-after-only", "sliding"),
    () => probing("none", "bucket"),
    threeStacksAndStorm,
    twoProcesses,
  ]) {
    measured.push(await scenario());
  }
  return {
    section: "11 rate learning",
    figures: [
      { name: "sandbox latency", value: LATENCY_MS, unit: "ms" },
      ...measured.flatMap((m) => m.figures),
    ],
    targets: measured.flatMap((m) => m.targets),
  };
}
