import { addDays, daysFrom, utcToday } from "../src/time/calendar.js";
import { withAccount } from "./account-run.js";
import { differences } from "../test/faults/table-fingerprints.js";
import { atLeast, atMost, round, type SectionResult } from "./report.js";

/** The memory target: a worker fits a 256 MiB container. */
export const PEAK_RSS_MIB = 256;

const MIB = 1024 * 1024;

/**
 * 3. End to end, then 5. the no-op re-sync, 6. the landed responses and 7. replay: the large
 * account backfilled in full (every stream, a year of daily partitions) through one worker with
 * the rate limit off; an incremental `etl sync` the same day with nothing changed upstream, twice
 * (the first asks each /stat series from its checkpoint minus the lookback: requests never made
 * before); the responses stored; then the data tables emptied and `etl replay` deriving them
 * again from the stored responses alone.
 */
export async function endToEnd(): Promise<SectionResult[]> {
  return withAccount("large", 1, async ({ deployment, range }) => {
    const run = await deployment.backfill(range);
    const stored = await deployment.storedRows();
    const afterBackfill = (await deployment.responseStorage()).lastId;
    const resync = await deployment.sync();
    const resyncResponses = await deployment.newResponses(afterBackfill);
    const afterResync = (await deployment.responseStorage()).lastId;
    const steady = await deployment.sync();
    // The sandbox's data ends yesterday as the bench began: a re-sync after midnight UTC has a
    // new day to fetch (trends, radio, snapshots, /stat windows) and is no no-op at all.
    const daysPastAccount = daysFrom(addDays(range.to, 1), utcToday());
    const steadyResponses = await deployment.newResponses(afterResync);
    const storage = await deployment.responseStorage();
    const sum = (byStream: Record<string, number>) =>
      Object.values(byStream).reduce((a, b) => a + b, 0);
    const { artist_stats_platform_stats: statWindows = 0, ...otherNew } = resyncResponses;
    const synced = await deployment.dataPrints();
    await deployment.emptyDataTables();
    const replay = await deployment.replay();
    const replayed = differences(synced, await deployment.dataPrints());
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
          {
            name: "the run's end after its last partition (roles settled, roll-ups summed)",
            value:
              run.runEndSeconds === null
                ? "no end recorded"
                : `${round(run.runEndSeconds)} s (${round((100 * run.runEndSeconds) / run.wallSeconds)}% of the wall)`,
          },
          { name: "worker peak RSS", value: round(run.workerPeakRssMiB), unit: "MiB" },
          {
            name: "Redis peak memory, above before",
            value: round(run.redis.memoryMiB),
            unit: "MiB",
          },
          { name: "Redis peak jobs to run", value: run.redis.jobs },
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
          { name: "new responses: /stat windows never asked before", value: statWindows },
          { name: "second re-sync exit code", value: String(steady.exitCode) },
        ],
        targets: [
          atMost(
            "days the re-syncs ran past the account's today (midnight UTC)",
            daysPastAccount,
            0,
          ),
          atMost("rows written", resync.rowsWritten, 0),
          atMost("new responses but /stat windows never asked before", sum(otherNew), 0),
          atMost("second re-sync: rows written", steady.rowsWritten, 0),
          atMost("second re-sync: new responses", sum(steadyResponses), 0),
        ],
      },
      {
        section: "6 landed responses",
        figures: [
          { name: "responses stored", value: storage.rows },
          { name: "bodies as received", value: round(storage.bodyBytes / MIB), unit: "MiB" },
          {
            name: "on disk (table, TOAST, indexes)",
            value: round(storage.diskBytes / MIB),
            unit: "MiB",
          },
          {
            name: "on disk / as received",
            value: round(storage.diskBytes / (storage.bodyBytes || 1)),
          },
        ],
        targets: [],
      },
      {
        section: "7 replay",
        figures: [
          { name: "replay exit code", value: String(replay.exitCode) },
          { name: "wall", value: round(replay.wallSeconds), unit: "s" },
          { name: "partitions", value: replay.partitions },
          { name: "rows written", value: replay.rowsWritten },
          { name: "rows written/s", value: Math.round(replay.rowsWritten / replay.wallSeconds) },
          { name: "backfill wall, rate limit off", value: round(run.wallSeconds), unit: "s" },
          { name: "tables differing from the sync's", value: replayed.join("; ") || "none" },
        ],
        targets: [
          atMost("requests", replay.requests, 0),
          atMost("tables differing", replayed.length, 0),
          atMost("wall / backfill wall", replay.wallSeconds / run.wallSeconds, 1),
          // Rows stored also hold what a trigger writes (payout history), which no load writes.
          atLeast(
            "rows written / backfill rows written",
            replay.rowsWritten / (run.rowsWritten || 1),
            1,
          ),
        ],
      },
    ];
  });
}
