import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { KnobsPatch, SandboxSize, SandboxStats } from "../sandbox/index.js";
import { PROJECT_ROOT } from "../test/helpers/cli.js";

/**
 * The built JavaScript of a project script (`npm run build`, as in the Docker image), run by
 * node itself: the memory measured is the worker's as deployed, without a TypeScript loader.
 */
export function built(script: string): string {
  return resolve(PROJECT_ROOT, "dist", script.replace(/\.ts$/, ".js"));
}

export { imageNodeOptions } from "../test/helpers/cli.js";

/** A project script, built, run by node: its pid is node's. */
interface NodeProcess {
  readonly child: ChildProcess;
  /** Lines it wrote, stdout and stderr. */
  readonly lines: string[];
  readonly exited: Promise<number | null>;
  /** Resolves with the first line `match` accepts; rejects if the process ends first. */
  waitForLine(match: (line: string) => boolean): Promise<string>;
  stop(): Promise<number | null>;
}

/** The sandbox is no part of the build: node runs its TypeScript through tsx. */
function sandboxEntry(): string[] {
  return ["--import", "tsx", resolve(PROJECT_ROOT, "sandbox/main.ts")];
}

function startNode(
  entry: readonly string[],
  args: readonly string[],
  env: Record<string, string>,
): NodeProcess {
  const script = entry.at(-1) ?? "";
  const child = spawn(process.execPath, [...entry, ...args], {
    cwd: PROJECT_ROOT,
    env: { PATH: process.env.PATH ?? "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const lines: string[] = [];
  const waiters: { match: (line: string) => boolean; done: (line: string) => void }[] = [];
  // "close": the process has ended and its output has all been read (its last line included).
  const exited = new Promise<number | null>((done) => child.once("close", (code) => done(code)));
  for (const stream of [child.stdout, child.stderr]) {
    let buffered = "";
    stream.on("data", (chunk: Buffer) => {
      buffered += chunk.toString();
      const parts = buffered.split("\n");
      buffered = parts.pop() ?? "";
      for (const line of parts) {
        lines.push(line);
        for (const waiter of waiters.filter((w) => w.match(line))) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.done(line);
        }
      }
    });
  }
  return {
    child,
    lines,
    exited,
    waitForLine: (match) =>
      new Promise((done, reject) => {
        const found = lines.find(match);
        if (found !== undefined) return done(found);
        waiters.push({ match, done });
        void exited.then((code) =>
          reject(new Error(`${script} exited (${code}):\n${lines.slice(-20).join("\n")}`)),
        );
      }),
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      return exited;
    },
  };
}

/** Peak resident set size of a live process, in MiB (Linux: VmHWM). */
export function peakRssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const match = /^VmHWM:\s+(\d+) kB$/m.exec(status);
  if (!match) throw new Error(`no VmHWM for process ${pid}`);
  return Number(match[1]) / 1024;
}

export interface SandboxProcess {
  readonly url: string;
  readonly apiKey: string;
  stats(): Promise<SandboxStats>;
  setKnobs(knobs: KnobsPatch): Promise<void>;
  stop(): Promise<void>;
}

/** The sandbox upstream in its own process, so its CPU and memory are not the pipeline's. */
export async function startSandboxProcess(options: {
  size: Partial<SandboxSize>;
  today: string;
  seed?: number;
  knobs?: { rps?: number; latencyMs?: number };
}): Promise<SandboxProcess> {
  const apiKey = `bench-${process.pid}-${Date.now()}`;
  const args = ["--port", "0", "--size", JSON.stringify(options.size), "--today", options.today];
  if (options.seed !== undefined) args.push("--seed", String(options.seed));
  if (options.knobs?.rps !== undefined) args.push("--rps", String(options.knobs.rps));
  if (options.knobs?.latencyMs !== undefined)
    args.push("--latency-ms", String(options.knobs.latencyMs));
  const node = startNode(sandboxEntry(), args, { SANDBOX_API_KEY: apiKey });
  const line = await node.waitForLine((l) => l.includes("listening on"));
  const url = /(http:\/\/\S+)/.exec(line)?.[1];
  if (!url) throw new Error(`sandbox said: ${line}`);
  const admin = async (path: string, body?: unknown) => {
    const response = await fetch(`${url}/__sandbox/${path}`, {
      method: body === undefined ? "GET" : "POST",
      ...(body === undefined
        ? {}
        : { body: JSON.stringify(body), headers: { "content-type": "application/json" } }),
    });
    if (!response.ok) throw new Error(`sandbox ${path}: HTTP ${response.status}`);
    const answer: unknown = await response.json();
    return answer;
  };
  return {
    url,
    apiKey,
    stats: async () => (await admin("stats")) as SandboxStats,
    setKnobs: async (knobs) => void (await admin("knobs", knobs)),
    stop: async () => void (await node.stop()),
  };
}

/** `etl <args>` to its end; `nodeArgs` go to node before the script (e.g. `--import` a preload). */
export async function runEtl(
  args: readonly string[],
  env: Record<string, string>,
  nodeArgs: readonly string[] = [],
): Promise<{ code: number | null; signal: NodeJS.Signals | null; lines: readonly string[] }> {
  const node = startNode([...nodeArgs, built("src/cli/main.ts")], args, {
    LOG_LEVEL: "warn",
    ...env,
  });
  const code = await node.exited;
  return { code, signal: node.child.signalCode, lines: node.lines };
}

/** Preloaded (`node --import`): bench/peak-memory.js, which reports the process's peak RSS. */
export const PEAK_MEMORY_PRELOAD = [
  "--import",
  pathToFileURL(resolve(PROJECT_ROOT, "bench/peak-memory.js")).href,
];
/** The line bench/peak-memory.js writes as the process exits. */
const PEAK_LINE = /^bench-peak-memory (\{.*\})$/;

/** The peak RSS a process run with PEAK_MEMORY_PRELOAD reported; null when it wrote none (crashed). */
export function reportedPeakRssBytes(lines: readonly string[]): number | null {
  const reported = lines.map((line) => PEAK_LINE.exec(line)?.[1]).find(Boolean);
  return reported ? (JSON.parse(reported) as { rssBytes: number }).rssBytes : null;
}
