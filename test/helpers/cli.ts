import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { dirname, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";
import pLimit from "p-limit";
import { REDIS_URL } from "./redis.js";

export const PROJECT_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
/**
 * tsx as a loader of node itself: one process (a signal reaches the script), started in half the
 * time of tsx's own command, which starts node twice.
 */
export const TSX_LOADER = pathToFileURL(
  resolve(PROJECT_ROOT, "node_modules/tsx/dist/loader.mjs"),
).href;
/** Names the run's build of the project (test/helpers/test-build.ts), when vitest made one. */
export const TEST_BUILD_ENV = "MUSIC_ETL_TEST_BUILD";

/**
 * The node arguments that run `source` (a TypeScript file of the project, from its root): its
 * JavaScript in the run's build when there is one, else the source through tsx (the bench).
 */
export function nodeEntry(source: string): string[] {
  const build = process.env[TEST_BUILD_ENV];
  if (build) return [resolve(build, source.replace(/\.ts$/, ".js"))];
  return ["--import", TSX_LOADER, resolve(PROJECT_ROOT, source)];
}

/** `etl` as node arguments (see nodeEntry). */
export const CLI_ENTRY: readonly string[] = nodeEntry("src/cli/main.ts");

/**
 * The environment of an `etl` process against a sandbox and a test warehouse, with its config file
 * at `configPath` (null: none), the machine's Redis and logs at info; `extra` adds or overrides
 * variables.
 */
export function etlEnv(
  upstream: { readonly url: string; readonly apiKey: string },
  databaseUrl: string,
  configPath: string | null,
  extra: Record<string, string> = {},
): Record<string, string> {
  return {
    MUSIC_API_URL: upstream.url,
    MUSIC_API_KEY: upstream.apiKey,
    DATABASE_URL: databaseUrl,
    REDIS_URL,
    ...(configPath === null ? {} : { ETL_CONFIG: configPath }),
    LOG_LEVEL: "info",
    ...extra,
  };
}

/** The NODE_OPTIONS the Docker image runs the worker and the CLI with, read from the Dockerfile. */
export function imageNodeOptions(): string {
  const dockerfile = readFileSync(resolve(PROJECT_ROOT, "Dockerfile"), "utf8");
  return /^ENV NODE_OPTIONS=(.+)$/m.exec(dockerfile)?.[1]?.trim() ?? "";
}

/**
 * CLI processes of one test file running at once. Each start is about a CPU-second: twenty at
 * once on a busy two-core machine left every one of them past its test's timeout, where the same
 * twenty one core's worth at a time each finish in their own time.
 */
const spawning = pLimit(Math.max(1, availableParallelism() - 1));

export interface CliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs `etl <args>` as its own process, the way an operator does, with only the given env; in
 * turn with the file's other CLI processes (`spawning`), unless `atOnce`: for processes a test
 * needs side by side. It is killed after `timeoutMs` (a minute unless told).
 */
export function runCli(
  args: readonly string[],
  options: { cwd: string; env: Record<string, string>; atOnce?: boolean; timeoutMs?: number },
): Promise<CliResult> {
  const run = () =>
    new Promise<CliResult>((resolvePromise) => {
      execFile(
        process.execPath,
        [...CLI_ENTRY, ...args],
        {
          cwd: options.cwd,
          env: { PATH: process.env.PATH ?? "", ...options.env },
          timeout: options.timeoutMs ?? 60_000,
        },
        (error, stdout, stderr) => {
          const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
          resolvePromise({ code, stdout, stderr });
        },
      );
    });
  return options.atOnce === true ? run() : spawning(run);
}

/**
 * `etl <args>` as runCli runs it, in `cwd` with the environment `env` gives (read at each call,
 * so it may name what beforeAll makes) and, per call, `extra` on top.
 */
export function etlIn(cwd: string, env: () => Record<string, string>) {
  return (args: readonly string[], extra: Record<string, string> = {}): Promise<CliResult> =>
    runCli(args, { cwd, env: { ...env(), ...extra } });
}

/**
 * test/helpers/budget-client.ts as a process of its own in `cwd` (its etl.config.json sets the
 * budget): `requests` look-ups against `upstream` through the shared budget, as fast as it lets.
 */
export function runBudgetClient(
  cwd: string,
  upstream: { readonly url: string; readonly apiKey: string },
  requests: number,
): Promise<{ stdout: string; stderr: string }> {
  return promisify(execFile)(process.execPath, nodeEntry("test/helpers/budget-client.ts"), {
    cwd,
    env: {
      PATH: process.env.PATH ?? "",
      MUSIC_API_URL: upstream.url,
      MUSIC_API_KEY: upstream.apiKey,
      REDIS_URL,
      LOG_LEVEL: "warn",
      REQUESTS: String(requests),
    },
  });
}
