import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PROJECT_ROOT } from "../helpers/cli.js";
import { until } from "../helpers/until.js";
import { NO_SCHEDULES, processSetting } from "../helpers/process-setting.js";

const setting = processSetting("npm-signal", {
  apiKey: "npm-signal-key-0123456789",
  today: "2026-01-31",
});

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe("a worker started through npm, as users start it", () => {
  it("stops, gracefully, when npx's own process is sent SIGTERM", async () => {
    const config = { start_date: "2026-01-01", shutdown_grace_ms: 1_000, schedules: NO_SCHEDULES };
    const env = setting.configure(config, {
      env: {
        PATH: process.env.PATH ?? "",
        HOME: process.env.HOME ?? setting.dir.path,
        WORKER_PORT: "0",
      },
    });
    const npm = spawn("npx", ["--offline", "etl", "worker"], {
      cwd: PROJECT_ROOT,
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const lines: { pid?: number; msg?: string }[] = [];
    const exited = new Promise<number | null>((done) => npm.once("exit", (code) => done(code)));
    // Standard error ends once every process holding it has: npx, its shell and the worker.
    const allEnded = new Promise<void>((done) => npm.stderr.once("end", done));
    const started = new Promise<number>((done, fail) => {
      let buffered = "";
      npm.stderr.on("data", (chunk: Buffer) => {
        buffered += chunk.toString();
        const parts = buffered.split("\n");
        buffered = parts.pop() ?? "";
        for (const part of parts) {
          // npx's own lines (a failed command's) are no JSON.
          const line = (() => {
            try {
              return JSON.parse(part) as { pid?: number; msg?: string };
            } catch {
              return { msg: part };
            }
          })();
          lines.push(line);
          if (line.msg === "worker started") done(line.pid ?? 0);
        }
      });
      void exited.then(() => fail(new Error("npx ended before the worker started")));
    });
    const workerPid = await started;
    expect(workerPid).not.toBe(npm.pid);
    npm.kill("SIGTERM");
    await exited;
    await allEnded;
    // Its standard error closes as it exits, a moment before it is gone.
    await until(() => Promise.resolve(!alive(workerPid)));
    expect(lines.map((line) => line.msg)).toContain("worker stopped");
  });

  it("runs every long-lived script with exec, so npm's signal reaches the process itself", () => {
    const { scripts } = JSON.parse(readFileSync(join(PROJECT_ROOT, "package.json"), "utf8")) as {
      scripts: Record<string, string>;
    };
    for (const name of ["start", "sandbox", "demo"]) {
      expect(scripts[name], name).toMatch(/^exec /);
      // tsx's own command runs the script in a child of its own and relays a signal to it, then
      // kills it (SIGKILL) when the child has not said within 60 ms that it got the signal: a
      // busy machine's worker was killed mid-stop. tsx as node's loader is one process.
      expect(scripts[name], name).not.toMatch(/^exec tsx /);
    }
  });
});
