import { addDays } from "../src/time/calendar.js";
import { withAccount } from "./account-run.js";
import type { BackfillMeasure } from "./deployment.js";
import { PEAK_RSS_MIB } from "./end-to-end.js";
import { atMost, round, type SectionResult } from "./report.js";

const SCALES = [1, 10] as const;

/**
 * 4. Memory: the worker's peak RSS backfilling the large account and one 10 times larger, over
 * the same last `days` days (the streams without days in full). Pages stream through, so the
 * peak should hardly move with the size of the account.
 */
export async function memory(days: number): Promise<SectionResult> {
  const runs: BackfillMeasure[] = [];
  for (const scale of SCALES) {
    runs.push(
      await withAccount(`memory${scale}`, scale, ({ deployment, range }) =>
        deployment.backfill({ from: addDays(range.to, 1 - days), to: range.to }),
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
  return {
    section: "4 memory",
    figures: [{ name: "days backfilled (streams without days: all)", value: days }, ...figures],
    targets: [
      atMost("large account: worker peak RSS, MiB", large.workerPeakRssMiB, PEAK_RSS_MIB),
      atMost(
        "10× account ÷ large account, peak RSS",
        tenfold.workerPeakRssMiB / large.workerPeakRssMiB,
        1.5,
      ),
    ],
  };
}
