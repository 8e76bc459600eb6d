import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { afterEach, describe, expect, it } from "vitest";

/** Runs `npm run sandbox`'s entry point and resolves with the first line it prints. */
function startCli(args: string[], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, ["--import", "tsx", "sandbox/main.ts", ...args], {
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
    expect(line).toMatch(/http:\/\/127\.0\.0\.1:\d+$/);
    expect(cli.output()).not.toContain("cli-secret-key");
    const url = line.slice(line.indexOf("http://"));
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

  it("refuses a non-numeric setting with exit code 2", async () => {
    const cli = startCli(["--port", "0"], { SANDBOX_SEED: "abc" });
    child = cli.child;
    const [code] = await once(cli.child, "exit");
    expect(code).toBe(2);
  });
});
