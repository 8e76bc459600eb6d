import { atLeast, atMost, type SectionResult, round } from "./report.js";
import { deploy } from "./deployment.js";
import { startSandboxProcess } from "./processes.js";
import { createScratch } from "./scratch.js";

const R = 50;
const LATENCY_MS = 50;
const TODAY = "2026-01-31";

/**
 * 2. Fetch path: the trends of the default sandbox account backfilled at R requests per second
 * against an upstream that takes 50 ms per request and answers 429 above R in any second.
 */
export async function fetchPath(): Promise<SectionResult> {
  const scratch = await createScratch("fetch");
  const sandbox = await startSandboxProcess({
    size: {},
    today: TODAY,
    knobs: { rps: R, latencyMs: LATENCY_MS },
  });
  try {
    const deployment = await deploy({
      sandbox,
      scratch,
      etl: {
        start_date: "2026-01-01",
        requests_per_second: R,
        max_concurrency: 8,
        worker_concurrency: 8,
      },
    });
    const run = await deployment
      .backfill({ from: "2026-01-01", to: "2026-01-30" }, "trends")
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
    const achieved = inner.length > 0 ? innerRequests / inner.length : 0;
    const lateRateLimited = Object.entries(stats.rateLimitedPerSecond)
      .filter(([second]) => Number(second) > first)
      .reduce((sum, [, n]) => sum + n, 0);
    return {
      section: "2 fetch path",
      figures: [
        { name: "R (requests_per_second, sandbox limit)", value: R, unit: "req/s" },
        { name: "sandbox latency", value: LATENCY_MS, unit: "ms" },
        { name: "requests", value: stats.requests },
        { name: "wall", value: round(run.wallSeconds), unit: "s" },
        { name: "achieved over whole seconds", value: round(achieved, 2), unit: "req/s" },
        { name: "most in one second", value: stats.maxPerSecond },
        { name: "429s (all)", value: stats.rateLimited },
        { name: "backfill exit code", value: String(run.exitCode) },
        { name: "rows written", value: run.rowsWritten },
        { name: "worker peak RSS", value: round(run.workerPeakRssMiB), unit: "MiB" },
        {
          name: "partition time: fetch / normalise / write",
          value: `${round(run.phases.fetch)} / ${round(run.phases.normalise)} / ${round(run.phases.write)}`,
          unit: "s",
        },
        { name: "stalled jobs", value: run.stalled },
      ],
      targets: [
        atLeast("achieved ÷ R", achieved / R, 0.9),
        atMost("429s after the first second", lateRateLimited, 0),
      ],
    };
  } finally {
    await sandbox.stop();
    await scratch.drop();
  }
}
