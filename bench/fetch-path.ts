import { atLeast, atMost, type Figure, type SectionResult, round } from "./report.js";
import { type BackfillMeasure, deploy } from "./deployment.js";
import { type SandboxProcess, startSandboxProcess } from "./processes.js";
import { createScratch } from "./scratch.js";

const R = 50;
const LATENCY_MS = 50;
/** The unstated limit "auto" must find: the one seen on upstreams that say nothing of it. */
const UNSTATED = 12;
const TODAY = "2026-01-31";

interface FetchRun {
  readonly run: BackfillMeasure;
  readonly requests: number;
  readonly rateLimited: number;
  /** Requests per second over the whole seconds between the first and the last. */
  readonly achieved: number;
  readonly mostInOneSecond: number;
  /** 429s after the run's first second. */
  readonly lateRateLimited: number;
}

/**
 * The trends of the default sandbox account backfilled against an upstream that takes 50 ms per
 * request and answers 429 above `limit` in any second, stating it or not.
 */
async function backfillTrends(
  label: string,
  limit: number,
  rate: unknown,
  rateLimitHeaders: "retry-after" | "none",
): Promise<FetchRun> {
  const scratch = await createScratch(label);
  let sandbox: SandboxProcess | undefined;
  try {
    sandbox = await startSandboxProcess({
      size: {},
      today: TODAY,
      knobs: { rps: limit, latencyMs: LATENCY_MS },
    });
    await sandbox.setKnobs({ rateLimitHeaders });
    const deployment = await deploy({
      sandbox,
      scratch,
      etl: {
        start_date: "2026-01-01",
        requests_per_second: rate,
        max_concurrency: 8,
        worker_concurrency: 8,
      },
    });
    const run = await deployment
      .backfill({ from: "2026-01-01", to: "2026-01-30" }, { only: "trends" })
      .finally(() => deployment.close());
    const stats = await sandbox.stats();
    const seconds = Object.keys(stats.perSecond)
      .map(Number)
      .sort((a, b) => a - b);
    const first = seconds[0] ?? 0;
    const last = seconds.at(-1) ?? 0;
    // Whole seconds only: the first and the last are partly idle.
    const inner = seconds.filter((s) => s > first && s < last);
    const innerRequests = inner.reduce((sum, s) => sum + (stats.perSecond[s] ?? 0), 0);
    return {
      run,
      requests: stats.requests,
      rateLimited: stats.rateLimited,
      achieved: inner.length > 0 ? innerRequests / inner.length : 0,
      mostInOneSecond: stats.maxPerSecond,
      lateRateLimited: Object.entries(stats.rateLimitedPerSecond)
        .filter(([second]) => Number(second) > first)
        .reduce((sum, [, n]) => sum + n, 0),
    };
  } finally {
    await sandbox?.stop();
    await scratch.drop();
  }
}

function runFigures(what: string, measured: FetchRun): Figure[] {
  const { run } = measured;
  return [
    { name: `${what}: requests`, value: measured.requests },
    { name: `${what}: wall`, value: round(run.wallSeconds), unit: "s" },
    {
      name: `${what}: achieved over whole seconds`,
      value: round(measured.achieved, 2),
      unit: "req/s",
    },
    { name: `${what}: most in one second`, value: measured.mostInOneSecond },
    { name: `${what}: 429s (all)`, value: measured.rateLimited },
    { name: `${what}: backfill exit code`, value: String(run.exitCode) },
    { name: `${what}: rows written`, value: run.rowsWritten },
    {
      name: `${what}: rate in force at the end`,
      value: run.rate ? `${run.rate.requestsPerSecond} (${run.rate.source})` : "-",
      unit: "req/s",
    },
  ];
}

/**
 * 2. Fetch path: the trends of the default sandbox account backfilled at R requests per second
 * (fixed, then "auto" with the limit stated), and with "auto" against UNSTATED req/s the upstream
 * never states.
 */
export async function fetchPath(): Promise<SectionResult> {
  const fixed = await backfillTrends("fetch", R, R, "retry-after");
  const stated = await backfillTrends("fetch_stated", R, "auto", "retry-after");
  const unstated = await backfillTrends("fetch_unstated", UNSTATED, "auto", "none");
  const learned = unstated.run.rate?.requestsPerSecond ?? 0;
  return {
    section: "2 fetch path",
    figures: [
      { name: "R (requests_per_second, sandbox limit)", value: R, unit: "req/s" },
      { name: "sandbox latency", value: LATENCY_MS, unit: "ms" },
      ...runFigures(`fixed ${R}`, fixed),
      {
        name: `fixed ${R}: worker peak RSS`,
        value: round(fixed.run.workerPeakRssMiB),
        unit: "MiB",
      },
      {
        name: `fixed ${R}: partition time: fetch / normalise / write`,
        value: `${round(fixed.run.phases.fetch)} / ${round(fixed.run.phases.normalise)} / ${round(fixed.run.phases.write)}`,
        unit: "s",
      },
      { name: `fixed ${R}: stalled jobs`, value: fixed.run.stalled },
      ...runFigures(`auto, ${R} stated`, stated),
      ...runFigures(`auto, ${UNSTATED} unstated`, unstated),
    ],
    targets: [
      atLeast("fixed: achieved ÷ R", fixed.achieved / R, 0.9),
      atMost("fixed: 429s after the first second", fixed.lateRateLimited, 0),
      atLeast("auto, stated: achieved ÷ R", stated.achieved / R, 0.9),
      atMost("auto, stated: 429s after the first second", stated.lateRateLimited, 0),
      atLeast(`auto, unstated: learned rate ÷ ${UNSTATED}`, learned / UNSTATED, 0.9),
      atLeast(`auto, unstated: achieved ÷ ${UNSTATED}`, unstated.achieved / UNSTATED, 0.75),
      atMost("auto, unstated: 429s ÷ requests", unstated.rateLimited / unstated.requests, 0.03),
    ],
  };
}
