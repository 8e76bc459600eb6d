import { withAccount } from "./account-run.js";
import { atMost, round, type SectionResult } from "./report.js";

/** The memory target: a worker fits a 256 MiB container. */
export const PEAK_RSS_MIB = 256;

/**
 * 3. End to end, then 5. the no-op re-sync: the large account backfilled in full (every stream,
 * a year of daily partitions) through one worker with the rate limit off, then an incremental
 * `etl sync` the same day with nothing changed upstream.
 */
export async function endToEnd(): Promise<SectionResult[]> {
  return withAccount("large", 1, async ({ deployment, range }) => {
    const run = await deployment.backfill(range);
    const stored = await deployment.storedRows();
    const resync = await deployment.sync();
    const partitionSeconds = run.phases.fetch + run.phases.normalise + run.phases.write;
    const share = (seconds: number) =>
      `${round(seconds)} s (${round((100 * seconds) / (partitionSeconds || 1))}%)`;
    return [
      {
        section: "3 end to end",
        figures: [
          { name: "range", value: `${range.from}..${range.to}` },
          { name: "backfill exit code", value: String(run.exitCode) },
          { name: "wall", value: round(run.wallSeconds), unit: "s" },
          { name: "requests", value: run.requests },
          { name: "requests/s", value: round(run.requests / run.wallSeconds) },
          { name: "rows written", value: run.rowsWritten },
          { name: "rows stored", value: stored },
          { name: "rows written/s", value: Math.round(run.rowsWritten / run.wallSeconds) },
          { name: "partition time: fetch", value: share(run.phases.fetch) },
          { name: "partition time: normalise", value: share(run.phases.normalise) },
          { name: "partition time: write", value: share(run.phases.write) },
          { name: "worker peak RSS", value: round(run.workerPeakRssMiB), unit: "MiB" },
        ],
        targets: [
          atMost("stalled jobs", run.stalled, 0),
          atMost("worker peak RSS, MiB", run.workerPeakRssMiB, PEAK_RSS_MIB),
        ],
      },
      {
        section: "5 no-op re-sync",
        figures: [
          { name: "sync exit code", value: String(resync.exitCode) },
          { name: "wall", value: round(resync.wallSeconds), unit: "s" },
          { name: "partitions", value: resync.partitions },
          { name: "requests", value: resync.requests },
        ],
        targets: [atMost("rows written", resync.rowsWritten, 0)],
      },
    ];
  });
}
