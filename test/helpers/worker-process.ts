import { type ChildProcess, spawn } from "node:child_process";
import { CLI_ENTRY } from "./cli.js";

export interface EtlProcess {
  readonly child: ChildProcess;
  /** Its log lines (standard error), as they came. */
  readonly logs: string[];
  /** What it printed on standard output. */
  readonly stdout: () => string;
  /** Resolves with the exit code (null when killed by a signal). */
  readonly exited: Promise<number | null>;
}

export interface WorkerProcess extends EtlProcess {
  /** http://127.0.0.1:PORT of its /readyz, /metrics and /queues. */
  readonly operatorUrl: string;
}

export interface EtlProcessOptions {
  cwd: string;
  env: Record<string, string>;
  /** The CLI's entry as node arguments; default CLI_ENTRY. */
  entry?: readonly string[];
}

/**
 * `etl <args>` as its own single process (node itself, as in the Docker image), so a signal
 * reaches the command itself. `onLog` sees each log line as it comes.
 */
export function spawnEtl(
  args: readonly string[],
  options: EtlProcessOptions,
  onLog: (line: string) => void = () => undefined,
): EtlProcess {
  const entry = options.entry ?? CLI_ENTRY;
  const child = spawn(process.execPath, [...entry, ...args], {
    cwd: options.cwd,
    env: { PATH: process.env.PATH ?? "", WORKER_PORT: "0", LOG_LEVEL: "info", ...options.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const logs: string[] = [];
  let stdout = "";
  const exited = new Promise<number | null>((done) => child.once("exit", (code) => done(code)));
  let buffered = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    buffered += chunk.toString();
    const lines = buffered.split("\n");
    buffered = lines.pop() ?? "";
    for (const line of lines) {
      logs.push(line);
      onLog(line);
    }
  });
  child.stdout?.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  return { child, logs, stdout: () => stdout, exited };
}

/** Kills the processes still running (SIGKILL) and waits for every one of them to end. */
export async function endProcesses(processes: readonly EtlProcess[]): Promise<void> {
  for (const p of processes) {
    if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill("SIGKILL");
  }
  await Promise.all(processes.map((p) => p.exited));
}

/** `etl worker` as its own process; resolves once it reports it has started. */
export function spawnWorker(options: EtlProcessOptions): Promise<WorkerProcess> {
  return new Promise((resolvePromise, reject) => {
    const started = spawnEtl(["worker"], options, (line) => {
      const parsed = safeJson(line);
      if (parsed?.msg === "worker started") {
        resolvePromise({ ...started, operatorUrl: String(parsed.operator) });
      }
    });
    void started.exited.then((code) =>
      reject(new Error(`worker exited (${code}) before starting:\n${started.logs.join("\n")}`)),
    );
  });
}

/**
 * Where a worker that has not started yet (it waits for Postgres or Redis) serves /metrics and
 * /readyz: its operator server listens from the start and says so.
 */
export async function operatorUrlOf(worker: EtlProcess, timeoutMs = 60_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const line = worker.logs.find((l) => safeJson(l)?.msg === "operator server listening");
    const url = line ? safeJson(line)?.url : undefined;
    if (typeof url === "string") return url;
    if (Date.now() > deadline || worker.child.exitCode !== null) {
      throw new Error(`the worker never said where it listens:\n${worker.logs.join("\n")}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A worker's /readyz: its status and each check's word. */
export async function readiness(worker: WorkerProcess) {
  const response = await fetch(`${worker.operatorUrl}/readyz`);
  return {
    status: response.status,
    body: (await response.json()) as { status: string; checks: Record<string, string> },
  };
}

function safeJson(line: string): Record<string, unknown> | null {
  try {
    return JSON.parse(line) as Record<string, unknown>;
  } catch {
    return null;
  }
}
