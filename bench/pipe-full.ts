import { sandboxTracking } from "../sandbox/demo/sandbox-tracking.js";
import { SandboxDataset } from "../sandbox/dataset/dataset.js";
import { resolveSize } from "../sandbox/size.js";
import { addDays } from "../src/time/calendar.js";
import { type Deployment, withDeployment } from "./deployment.js";
import { atLeast, round, type SectionResult } from "./report.js";

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
 * The wall is the whole command's, start-up and planning included.
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
  const measure = <T>(label: string, run: (deployment: Deployment) => Promise<T>) =>
    withDeployment(
      {
        label,
        sandbox: { size: {}, today: TODAY, seed: SEED, knobs: { latencyMs: LATENCY_MS } },
        etl,
      },
      run,
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
      { name: "sync: exit code", value: String(sync.exitCode) },
      { name: "sync: requests", value: sync.requests },
      { name: "sync: ideal wall", value: round(ideal(sync.requests), 2), unit: "s" },
      { name: "sync: wall", value: round(sync.wallSeconds, 2), unit: "s" },
      { name: "backfill: exit code", value: String(backfill.exitCode) },
      { name: "backfill: requests", value: backfill.requests },
      { name: "backfill: ideal wall", value: round(ideal(backfill.requests), 2), unit: "s" },
      { name: "backfill: wall", value: round(backfill.wallSeconds, 2), unit: "s" },
    ],
    targets: [
      atLeast("sync pipe-full ratio", ratio(sync), 0.85),
      atLeast("backfill pipe-full ratio", ratio(backfill), 0.85),
    ],
  };
}
