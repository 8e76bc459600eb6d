import { execFile } from "node:child_process";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const PROJECT_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const TSX = resolve(PROJECT_ROOT, "node_modules/.bin/tsx");

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
  return new Promise((resolvePromise) => {
    execFile(
      TSX,
      [resolve(PROJECT_ROOT, "src/cli/main.ts"), ...args],
      { cwd: options.cwd, env: { PATH: process.env.PATH ?? "", ...options.env }, timeout: 60_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
        resolvePromise({ code, stdout, stderr });
      },
    );
  });
}
