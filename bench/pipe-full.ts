import { sandboxTracking } from "../sandbox/demo/sandbox-tracking.js";
import { SandboxDataset } from "../sandbox/dataset/dataset.js";
import { DEFAULT_SIZE, resolveSize } from "../sandbox/size.js";
import { addDays } from "../src/time/calendar.js";
import { type Deployment, withDeployment } from "./deployment.js";
import { atLeast, atMost, round, type SectionResult } from "./report.js";

const LATENCY_MS = 40;
const MAX_CONCURRENCY = 8;
const DAYS = 14;
const TODAY = "2026-03-01";
const SEED = 1;

/**
 * 8. A full pipe: the default sandbox account over 14 days against an upstream with no rate
 * limit that answers every request in 40 ms, `max_concurrency` 8. With requests the only cost,
 * the wall would be requests × latency ÷ concurrency; the pipe-full ratio is that ÷ the wall
 * measured, for `etl sync` and for a worker backfill of the same range, each on a fresh database.
 * The wall is the whole command's, start-up and planning included (a worker's own start is not:
 * it is a long-lived process, started before the backfill is queued). The ratio assumes at most
 * `max_concurrency` requests in flight, so the sandbox's count of them is a target too: a budget
 * that let more through would raise the ratio without filling the pipe any better.
 */
export async function pipeFull(): Promise<SectionResult> {
  const data = new SandboxDataset(SEED, resolveSize({}), TODAY);
  const range = { from: addDays(TODAY, -DAYS), to: addDays(TODAY, -1) };
  const etl = {
    ...sandboxTracking(data),
    start_date: range.from,
    requests_per_second: 100_000,
    max_concurrency: MAX_CONCURRENCY,
  };
  const ideal = (requests: number) => (requests * LATENCY_MS) / 1000 / MAX_CONCURRENCY;
  // A fresh sandbox per command, and migrating sends it nothing: its peak is the command's.
  const measure = <T>(label: string, run: (deployment: Deployment) => Promise<T>) =>
    withDeployment(
      {
        label,
        // The sandbox process's own default window now ends the day before its today: the
        // fixed start keeps this section's requests what earlier runs measured.
        sandbox: {
          size: { startDate: DEFAULT_SIZE.startDate },
          today: TODAY,
          seed: SEED,
          knobs: { latencyMs: LATENCY_MS },
        },
        etl,
      },
      async (deployment, sandbox) => ({
        ...(await run(deployment)),
        inFlight: (await sandbox.stats()).peakConcurrency,
      }),
    );
  const sync = await measure("pipe-sync", (d) => d.sync(range));
  const backfill = await measure("pipe-backfill", (d) => d.backfill(range));
  const ratio = (run: { requests: number; wallSeconds: number }) =>
    ideal(run.requests) / run.wallSeconds;
  return {
    section: "8 full pipe",
    figures: [
      { name: "range", value: `${range.from}..${range.to}` },
      { name: "sandbox latency, rate limit", value: `${LATENCY_MS} ms, none` },
      { name: "max_concurrency", value: MAX_CONCURRENCY },
      { name: "sync: requests", value: sync.requests },
      { name: "sync: ideal wall", value: round(ideal(sync.requests), 2), unit: "s" },
      { name: "sync: wall", value: round(sync.wallSeconds, 2), unit: "s" },
      { name: "backfill: requests", value: backfill.requests },
      { name: "backfill: ideal wall", value: round(ideal(backfill.requests), 2), unit: "s" },
      { name: "backfill: wall", value: round(backfill.wallSeconds, 2), unit: "s" },
      {
        name: "sync: peak RSS",
        // A sync that crashed reports none: never printed as 0.
        value: sync.peakRssMiB === null ? "none reported" : round(sync.peakRssMiB, 1),
        unit: "MiB",
      },
      {
        name: "backfill: worker peak RSS",
        value: round(backfill.workerPeakRssMiB, 1),
        unit: "MiB",
      },
    ],
    targets: [
      atMost("sync: exit code", sync.exitCode ?? 1, 0),
      atMost("backfill: exit code", backfill.exitCode ?? 1, 0),
      atMost("sync: most requests in flight at once", sync.inFlight, MAX_CONCURRENCY),
      atMost("backfill: most requests in flight at once", backfill.inFlight, MAX_CONCURRENCY),
      // A sync that reported no peak (it crashed) fails it.
      atMost("sync: peak RSS, MiB", sync.peakRssMiB ?? Infinity, 256),
      atMost("backfill: worker peak RSS, MiB", backfill.workerPeakRssMiB, 256),
      atLeast("sync pipe-full ratio", ratio(sync), 0.85),
      atLeast("backfill pipe-full ratio", ratio(backfill), 0.85),
    ],
  };
}
