import { type ChildProcess, execFile, spawn } from "node:child_process";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { promisify } from "node:util";
import { request } from "undici";
import { afterEach, describe, expect, it } from "vitest";
import { addDays, utcToday } from "../../src/time/calendar.js";
import { nodeEntry, PROJECT_ROOT } from "../helpers/cli.js";

/** The URL of the start line: it ends at the first space. */
const urlOf = (line: string) => /(http:\/\/\S+)/.exec(line)?.[1] ?? "";

/** Streams the sandbox sold on `day`, all DSPs together. */
async function streamsOn(url: string, apiKey: string, day: string): Promise<number> {
  const response = await request(`${url}/api/v1/getTrendsTotal`, {
    method: "GET",
    headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
    body: JSON.stringify({ selection_type: "dsp", start_date: day, end_date: day }),
  });
  expect(response.statusCode).toBe(200);
  return ((await response.body.json()) as { stream_count: number }).stream_count;
}

/** Each flag with its environment variable, as `--help` lists them. */
async function helpFlags(): Promise<string[]> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [...nodeEntry("sandbox/main.ts"), "--help"],
    { cwd: PROJECT_ROOT },
  );
  return [...stdout.matchAll(/^ {2}(--[a-z-]+) <[^>]+>\s+(SANDBOX_[A-Z_]+)\s/gm)].map(
    ([, flag, variable]) => `${flag} ${variable}`,
  );
}

/** Each flag with its environment variable, as the table of docs/sandbox.md lists them. */
function documentedFlags(): string[] {
  const doc = readFileSync(resolve(PROJECT_ROOT, "docs/sandbox.md"), "utf8");
  return [...doc.matchAll(/^\| `(--[a-z-]+)` +\| `(SANDBOX_[A-Z_]+)` +\| \S/gm)].map(
    ([, flag, variable]) => `${flag} ${variable}`,
  );
}

/** Runs `npm run sandbox`'s entry point and resolves with the first line it prints. */
function startCli(args: string[], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, [...nodeEntry("sandbox/main.ts"), ...args], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const firstLine = new Promise<string>((resolve, reject) => {
    child.stdout?.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes("\n")) resolve(output.split("\n")[0] ?? "");
    });
    child.once("exit", (code) => reject(new Error(`exited with ${code} before printing`)));
  });
  // Marked handled: a test that expects the process to fail never awaits the line.
  firstLine.catch(() => undefined);
  return { child, firstLine, output: () => output };
}

describe("sandbox CLI", () => {
  let child: ChildProcess | undefined;
  afterEach(() => {
    if (child && child.exitCode === null) child.kill("SIGKILL");
  });

  it("prints its URL without the key, serves with the key, and exits 0 on SIGTERM", async () => {
    const cli = startCli(["--port", "0", "--rps", "50"], { SANDBOX_API_KEY: "cli-secret-key" });
    child = cli.child;
    const line = await cli.firstLine;
    expect(line).toMatch(/listening on http:\/\/127\.0\.0\.1:\d+ /);
    expect(cli.output()).not.toContain("cli-secret-key");
    const url = urlOf(line);
    const response = await fetch(`${url}/api/v1/getTerritories/fr`, {
      headers: { authorization: "Bearer cli-secret-key" },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("x-ratelimit-limit")).toBe("50");
    const exited = once(cli.child, "exit");
    cli.child.kill("SIGTERM");
    const [code] = await exited;
    expect(code).toBe(0);
  });

  it("serves sales up to yesterday (UTC) when no date is given, and says so on its start line", async () => {
    const before = utcToday();
    const cli = startCli(["--port", "0"], {
      SANDBOX_API_KEY: "cli-window-key",
      SANDBOX_TODAY: "",
      SANDBOX_SIZE: "",
    });
    child = cli.child;
    const line = await cli.firstLine;
    // A start on either side of midnight UTC is told by the day the line names.
    const today = [before, utcToday()].find((day) => line.endsWith(`, today ${day})`));
    expect(today).toBeDefined();
    const yesterday = addDays(today ?? before, -1);
    const first = addDays(today ?? before, -30);
    expect(line).toContain(`(sales ${first}..${yesterday}, today ${today})`);
    const url = urlOf(line);
    expect(await streamsOn(url, "cli-window-key", yesterday)).toBeGreaterThan(0);
    expect(await streamsOn(url, "cli-window-key", first)).toBeGreaterThan(0);
    expect(await streamsOn(url, "cli-window-key", addDays(first, -1))).toBe(0);
    expect(await streamsOn(url, "cli-window-key", today ?? before)).toBe(0);
  });

  it("keeps a given today and startDate: the window they make is the one it serves and names", async () => {
    const cli = startCli(["--port", "0", "--today", "2026-03-01", "--size", '{"days":7}']);
    child = cli.child;
    expect(await cli.firstLine).toMatch(/ \(sales 2026-02-22\.\.2026-02-28, today 2026-03-01\)$/);
    cli.child.kill("SIGTERM");
    await once(cli.child, "exit");
    const fixed = startCli(["--port", "0", "--today", "2026-03-01"], {
      SANDBOX_SIZE: '{"startDate":"2026-01-01"}',
    });
    child = fixed.child;
    expect(await fixed.firstLine).toMatch(/ \(sales 2026-01-01\.\.2026-01-30, today 2026-03-01\)$/);
  });

  it("has its flags documented in docs/sandbox.md, as --help lists them", async () => {
    const listed = await helpFlags();
    expect(listed).toContain("--today SANDBOX_TODAY");
    expect(listed).toContain("--size SANDBOX_SIZE");
    expect(documentedFlags().sort()).toEqual(listed.sort());
  });

  it("refuses a non-numeric setting with exit code 2", async () => {
    const cli = startCli(["--port", "0"], { SANDBOX_SEED: "abc" });
    child = cli.child;
    const [code] = await once(cli.child, "exit");
    expect(code).toBe(2);
  });
});
