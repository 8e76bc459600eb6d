// Prometheus's own command-line tool: its parser, rule engine and metrics linter, so what passes
// here is what Prometheus loads. CI installs it (.ci/run).
import { spawnSync } from "node:child_process";
import { PROJECT_ROOT } from "./cli.js";

export interface PromtoolResult {
  readonly status: number | null;
  /** Standard output and error together. */
  readonly output: string;
}

/** Runs promtool with `input` on its standard input; says how to install it when it is absent. */
export function runPromtool(args: readonly string[], input?: string): PromtoolResult {
  const result = spawnSync("promtool", args, { cwd: PROJECT_ROOT, encoding: "utf8", input });
  if (result.error && "code" in result.error && result.error.code === "ENOENT") {
    throw new Error(
      "promtool is not installed. On Debian or Ubuntu: apt-get install prometheus (as .ci/run " +
        "does); elsewhere, from a release at https://prometheus.io/download/.",
    );
  }
  if (result.error) throw result.error;
  return { status: result.status, output: result.stdout + result.stderr };
}

/** promtool's output; throws with it when promtool fails. */
export function promtool(...args: string[]): string {
  const { status, output } = runPromtool(args);
  if (status !== 0) throw new Error(`promtool ${args.join(" ")} exited ${status}:\n${output}`);
  return output;
}
