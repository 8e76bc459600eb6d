import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Sandbox, startSandbox } from "../../sandbox/index.js";
import { CLI_ENTRY, runCli } from "../helpers/cli.js";
import { deleteKeysWithPrefix, REDIS_URL, uniquePrefix } from "../helpers/redis.js";
import { makeTempDir } from "../helpers/temp-dir.js";
import { PG_HOST_URL, withDatabaseClient } from "../helpers/warehouse.js";

const prefix = uniquePrefix("cli-check");
const dir = makeTempDir("cli-check");
let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await startSandbox({ apiKey: "cli-check-secret-key-42" });
  dir.write("etl.config.json", {
    start_date: "2026-01-01",
    territory_keys: ["all"],
    redis_prefix: prefix,
  });
});

afterAll(async () => {
  await sandbox.close();
  await deleteKeysWithPrefix(prefix);
  dir.remove();
});

function check(apiKey: string, env: Record<string, string> = {}) {
  return runCli(["check"], {
    cwd: dir.path,
    env: {
      MUSIC_API_URL: sandbox.url,
      MUSIC_API_KEY: apiKey,
      REDIS_URL,
      LOG_LEVEL: "warn",
      ...env,
    },
  });
}

describe("etl check", () => {
  it("reports the configuration, Postgres, Redis and what one upstream call found", async () => {
    const result = await check(sandbox.apiKey, { DATABASE_URL: `${PG_HOST_URL}/postgres` });
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const territories = sandbox.data.territories().length;
    expect(result.stdout).toMatch(/^config {4}ok /m);
    expect(result.stdout).toMatch(/^postgres {2}ok /m);
    expect(result.stdout).toMatch(/^redis {5}ok /m);
    expect(result.stdout).toMatch(
      new RegExp(`^upstream  ok .*: ${territories} territories for key "all"`, "m"),
    );
    expect(sandbox.stats().requests).toBe(1);
  });

  it("names the server's version when the database exists", async () => {
    const result = await check(sandbox.apiKey, { DATABASE_URL: `${PG_HOST_URL}/postgres` });
    expect(result.code).toBe(0);
    const version = await withDatabaseClient(async (c) =>
      String(
        (await c.query<{ v: string }>("select current_setting('server_version') as v")).rows[0]?.v,
      ),
    );
    expect(result.stdout).toMatch(/^postgres {2}ok /m);
    expect(result.stdout).toContain(`/postgres (PostgreSQL ${version})`);
  });

  it("fails on a database that does not exist, naming it, and creates none", async () => {
    const missing = `music_etl_test_check_${randomBytes(4).toString("hex")}`;
    const result = await check(sandbox.apiKey, { DATABASE_URL: `${PG_HOST_URL}/${missing}` });
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(
      new RegExp(`^postgres {2}FAIL .*database "${missing}" does not exist.*etl migrate`, "m"),
    );
    const exists = await withDatabaseClient((c) =>
      c.query("select 1 from pg_database where datname = $1", [missing]),
    );
    expect(exists.rowCount).toBe(0);
  });

  it("exits 3 with a message about MUSIC_API_KEY when the key is refused, and never prints it", async () => {
    sandbox.resetStats();
    const wrongKey = "cli-check-wrong-key-77";
    const result = await check(wrongKey);
    expect(result.code).toBe(3);
    expect(result.stdout).toMatch(/^upstream {2}FAIL .*check MUSIC_API_KEY/m);
    expect(result.stdout + result.stderr).not.toContain(wrongKey);
    expect(sandbox.stats().requests).toBe(1);
  });

  it("writes what the client logs after its table, not into it, on one stream", async () => {
    dir.write("one-retry.json", {
      start_date: "2026-01-01",
      territory_keys: ["all"],
      redis_prefix: prefix,
      max_retries: 1,
    });
    sandbox.setKnobs({ faultRate: 1, faults: ["error500"] });
    try {
      const env = {
        PATH: process.env.PATH ?? "",
        MUSIC_API_URL: sandbox.url,
        MUSIC_API_KEY: sandbox.apiKey,
        REDIS_URL,
        DATABASE_URL: `${PG_HOST_URL}/postgres`,
        ETL_CONFIG: "one-retry.json",
        LOG_LEVEL: "warn",
      };
      // Standard output and error on one pipe, as a terminal or `2>&1` shows them.
      const merged = await new Promise<string>((done) => {
        execFile(
          "sh",
          [
            "-c",
            `"${process.execPath}" ${CLI_ENTRY.map((arg) => `"${arg}"`).join(" ")} check 2>&1`,
          ],
          { cwd: dir.path, env, timeout: 60_000 },
          (_error, stdout) => done(stdout),
        );
      });
      const lines = merged.trim().split("\n");
      const table = lines.findIndex((line) => line.startsWith("config "));
      expect(lines.slice(table, table + 4).map((line) => line.split(" ")[0])).toEqual([
        "config",
        "postgres",
        "redis",
        "upstream",
      ]);
      expect(lines[table + 3]).toMatch(/^upstream {2}FAIL /);
      const logged = lines.slice(table + 4);
      expect(logged.length).toBeGreaterThan(0);
      for (const line of logged) expect(JSON.parse(line)).toMatchObject({ level: 40 });
    } finally {
      sandbox.setKnobs({ faultRate: 0 });
    }
  });
});
