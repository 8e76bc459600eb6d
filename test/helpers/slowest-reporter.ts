import { relative } from "node:path";
import type { Reporter, TestModule } from "vitest/node";

/** How many files and tests the summary lists. */
const SHOWN = 10;

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1).padStart(6)} s`;
}

/**
 * Where the suite's time went: after the run, the slowest files (their tests and hooks, with
 * their import) and the slowest tests, so that a change that makes the suite wait longer shows
 * itself in the output of the run it made slower.
 */
export default class SlowestReporter implements Reporter {
  onTestRunEnd(modules: readonly TestModule[]): void {
    const files = modules
      .map((module) => {
        const diagnostic = module.diagnostic();
        return {
          name: relative(process.cwd(), module.moduleId),
          ms: diagnostic.duration + diagnostic.collectDuration,
        };
      })
      .sort((a, b) => b.ms - a.ms);
    const tests = modules
      .flatMap((module) =>
        [...module.children.allTests()].map((test) => ({
          name: `${relative(process.cwd(), module.moduleId)} > ${test.fullName}`,
          ms: test.diagnostic()?.duration ?? 0,
        })),
      )
      .sort((a, b) => b.ms - a.ms);
    const lines = [
      "",
      `The ${SHOWN} slowest files:`,
      ...files.slice(0, SHOWN).map((file) => `${seconds(file.ms)}  ${file.name}`),
      `The ${SHOWN} slowest tests:`,
      ...tests.slice(0, SHOWN).map((test) => `${seconds(test.ms)}  ${test.name}`),
      "",
    ];
    process.stdout.write(lines.join("\n"));
  }
}
