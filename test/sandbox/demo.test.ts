import { describe, expect, it } from "vitest";
import { execFile } from "node:child_process";
import { nodeEntry } from "../helpers/cli.js";

function demo(env: Record<string, string>) {
  return new Promise<{ code: number; stderr: string }>((done) => {
    execFile(
      process.execPath,
      nodeEntry("sandbox/demo/main.ts"),
      { env: { PATH: process.env.PATH ?? "", ...env }, timeout: 60_000 },
      (error, _stdout, stderr) => done({ code: error ? Number(error.code ?? 1) : 0, stderr }),
    );
  });
}

describe("npm run demo without its services", () => {
  it("names exactly the unreachable service and how to start it", async () => {
    const result = await demo({
      DATABASE_URL: "postgres://127.0.0.1:5432/postgres",
      REDIS_URL: "redis://127.0.0.1:1",
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("Not reachable: Redis at redis://127.0.0.1:1.");
    expect(result.stderr).not.toContain("PostgreSQL");
    expect(result.stderr).toContain("docker compose up -d postgres redis");

    const both = await demo({
      DATABASE_URL: "postgres://127.0.0.1:1/x",
      REDIS_URL: "redis://127.0.0.1:1",
    });
    expect(both.stderr).toContain(
      "Not reachable: PostgreSQL at postgres://127.0.0.1:1/x and Redis at redis://127.0.0.1:1.",
    );
  });
});
