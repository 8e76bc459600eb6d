import { addDays } from "../src/time/calendar.js";
import { withAccount } from "./account-run.js";
import type { BackfillMeasure } from "./deployment.js";
import { PEAK_RSS_MIB } from "./end-to-end.js";
import { atMost, round, type SectionResult } from "./report.js";

const SCALES = [1, 10] as const;
/** Partitions of a year's backfill Redis is watched over: every bound in the queue is reached. */
const YEAR_PARTITIONS = 30_000;

/**
 * 4. Memory: the worker's peak RSS backfilling the large account and one 10 times larger, over
 * the same last `days` days (the streams without days in full). Pages stream through, so the
 * peak should hardly move with the size of the account. Then Redis's peak during a year's
 * backfill of each, over its first YEAR_PARTITIONS partitions (a 10× year takes an hour): the
 * run keeps a window of partitions queued and folds those done into a count, the queue trims
 * completed jobs to 5,000, so past them nothing grows with the account.
 */
export async function memory(days: number): Promise<SectionResult> {
  const runs: BackfillMeasure[] = [];
  const years: BackfillMeasure[] = [];
  for (const scale of SCALES) {
    runs.push(
      await withAccount(`memory${scale}`, scale, ({ deployment, range }) =>
        deployment.backfill({ from: addDays(range.to, 1 - days), to: range.to }),
      ),
    );
    years.push(
      await withAccount(`redis${scale}`, scale, ({ deployment, range }) =>
        deployment.backfill(range, { stopAfter: YEAR_PARTITIONS }),
      ),
    );
  }
  const [large, tenfold] = runs as [BackfillMeasure, BackfillMeasure];
  const figures = SCALES.flatMap((scale, i) => {
    const run = runs[i] as BackfillMeasure;
    const account = scale === 1 ? "large account" : `${scale}× account`;
    return [
      { name: `${account}: backfill exit code`, value: String(run.exitCode) },
      { name: `${account}: requests`, value: run.requests },
      { name: `${account}: rows written`, value: run.rowsWritten },
      { name: `${account}: wall`, value: round(run.wallSeconds), unit: "s" },
      { name: `${account}: worker peak RSS`, value: round(run.workerPeakRssMiB), unit: "MiB" },
    ];
  });
  const yearFigures = SCALES.flatMap((scale, i) => {
    const year = years[i] as BackfillMeasure;
    const account = scale === 1 ? "large account" : `${scale}× account`;
    return [
      { name: `${account}, a year: partitions watched`, value: year.attempts },
      {
        name: `${account}, a year: Redis peak memory`,
        value: round(year.redis.memoryMiB),
        unit: "MiB",
      },
      { name: `${account}, a year: Redis peak jobs to run`, value: year.redis.jobs },
    ];
  });
  const [largeYear, tenfoldYear] = years as [BackfillMeasure, BackfillMeasure];
  return {
    section: "4 memory",
    figures: [
      { name: "days backfilled (streams without days: all)", value: days },
      ...figures,
      ...yearFigures,
    ],
    targets: [
      atMost("large account: worker peak RSS, MiB", large.workerPeakRssMiB, PEAK_RSS_MIB),
      atMost(
        "10× account ÷ large account, peak RSS",
        tenfold.workerPeakRssMiB / large.workerPeakRssMiB,
        1.5,
      ),
      atMost(
        "a year, 10× account ÷ large account, Redis peak memory",
        tenfoldYear.redis.memoryMiB / (largeYear.redis.memoryMiB || 1),
        1.5,
      ),
      // The window (plan_window, 2,000), the runs' own jobs and what is being retried.
      atMost("a year, 10× account: Redis peak jobs to run", tenfoldYear.redis.jobs, 2_100),
    ],
  };
}
