import { execFile } from "node:child_process";
import { availableParallelism } from "node:os";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import pLimit from "p-limit";

export const PROJECT_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const TSX = resolve(PROJECT_ROOT, "node_modules/.bin/tsx");

/**
 * CLI processes of one test file running at once. Each starts a TypeScript loader, about a
 * CPU-second: twenty at once on a busy two-core machine left every one of them past its test's
 * timeout, where the same twenty one core's worth at a time each finish in their own time.
 */
const spawning = pLimit(Math.max(1, availableParallelism() - 1));

export interface CliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `etl <args>` as its own process, the way an operator does, with only the given env. */
export function runCli(
  args: readonly string[],
  options: { cwd: string; env: Record<string, string> },
): Promise<CliResult> {
  return spawning(
    () =>
      new Promise<CliResult>((resolvePromise) => {
        execFile(
          TSX,
          [resolve(PROJECT_ROOT, "src/cli/main.ts"), ...args],
          {
            cwd: options.cwd,
            env: { PATH: process.env.PATH ?? "", ...options.env },
            timeout: 60_000,
          },
          (error, stdout, stderr) => {
            const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
            resolvePromise({ code, stdout, stderr });
          },
        );
      }),
  );
}
