import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * The files that take longest on a 2-core machine (seconds of wall each, most waiting on a rate
 * limit or on worker processes), longest first. Vitest orders a fresh checkout's files by size,
 * so a small file of 90 s could start last and leave one of the two workers idle for its length:
 * CI always runs on a fresh checkout.
 */
const LONGEST = [
  "test/http/auto-rate-probing.test.ts",
  "test/streams/probed-rate-sync.test.ts",
  "test/jobs/worker-processes.test.ts",
  "test/streams/shape-variants.test.ts",
  "test/http/request-budget.test.ts",
  "test/metrics/outage-metrics.test.ts",
  "test/cli/warehouse.test.ts",
  "test/http/auto-rate.test.ts",
  "test/jobs/redis-loss.test.ts",
  "test/jobs/large-answers.test.ts",
  "test/cli/runs.test.ts",
  "test/jobs/dependency-outage.test.ts",
];

/** Starts the longest files first, then the others in vitest's own order. */
export default class LongFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (file: TestSpecification) => {
      const at = LONGEST.findIndex((path) => file.moduleId.endsWith(path));
      return at === -1 ? LONGEST.length : at;
    };
    return sorted
      .map((file, order) => ({ file, order }))
      .sort((a, b) => rank(a.file) - rank(b.file) || a.order - b.order)
      .map(({ file }) => file);
  }
}
