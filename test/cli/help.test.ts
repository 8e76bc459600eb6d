import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { envSchema } from "../../src/config/env-schema.js";
import { PROJECT_ROOT, runCli } from "../helpers/cli.js";

describe("etl --help", () => {
  it("lists every environment variable the configuration reads, and exit 4 for backfill --wait", async () => {
    const result = await runCli(["--help"], { cwd: PROJECT_ROOT, env: {} });
    expect(result.code).toBe(0);
    const environment = /environment {2}([\s\S]*?)\(a \.env file/.exec(result.stdout)?.[1] ?? "";
    const listed = environment.split(/[\s,]+/).filter(Boolean);
    expect(listed.sort()).toEqual(Object.keys(envSchema.shape).sort());
    expect(result.stdout).toMatch(/4 records quarantined[^]*\(sync, replay,\s+backfill --wait\)/);
  });
});

describe("npx etl", () => {
  it("is the command the messages name, in a clone: its help and its exit code", async () => {
    const { stdout, code } = await new Promise<{ stdout: string; code: number | null }>(
      (done, fail) => {
        const child = spawn("npx", ["--offline", "etl", "--help"], {
          cwd: PROJECT_ROOT,
          env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "" },
        });
        let out = "";
        child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
        child.on("error", fail);
        child.on("close", (exit) => done({ stdout: out, code: exit }));
      },
    );
    expect(code).toBe(0);
    expect(stdout).toMatch(/^Usage: etl /m);
    expect(stdout).toMatch(/^ {2}worker\b/m);
  });
});

describe(".env.example", () => {
  it("names the operator paths the worker serves, not /healthz (a 404)", () => {
    const example = readFileSync(resolve(PROJECT_ROOT, ".env.example"), "utf8");
    const paths = [...example.matchAll(/\/(\w+)/g)].map((m) => m[1]);
    expect(paths).not.toContain("healthz");
    expect(paths).toEqual(expect.arrayContaining(["livez", "readyz", "metrics", "queues"]));
  });
});
