import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Sandbox, startSandbox } from "../../sandbox/index.js";
import { etlEnv, runCli } from "../helpers/cli.js";
import { deleteKeysWithPrefix, uniquePrefix } from "../helpers/redis.js";
import { makeTempDir } from "../helpers/temp-dir.js";
import { dropDatabase, PG_HOST_URL, withDatabaseClient } from "../helpers/warehouse.js";

const prefix = uniquePrefix("cli-missing-db");
const dir = makeTempDir("cli-missing-db");
const missing = `music_etl_test_typo_${randomBytes(4).toString("hex")}`;
const empty = `music_etl_test_unmigrated_${randomBytes(4).toString("hex")}`;
let sandbox: Sandbox;

function etl(args: string[], database: string) {
  return runCli(args, {
    cwd: dir.path,
    env: etlEnv(sandbox, `${PG_HOST_URL}/${database}`, null, {
      LOG_LEVEL: "silent",
      WORKER_PORT: "0",
    }),
  });
}

async function databaseExists(name: string): Promise<boolean> {
  const found = await withDatabaseClient((c) =>
    c.query("select 1 from pg_database where datname = $1", [name]),
  );
  return (found.rowCount ?? 0) > 0;
}

beforeAll(async () => {
  sandbox = await startSandbox({ apiKey: "cli-missing-db-key-123", today: "2026-01-31" });
  dir.write("etl.config.json", {
    start_date: "2026-01-20",
    redis_prefix: prefix,
    requests_per_second: 1000,
  });
  await withDatabaseClient((c) => c.query(`create database ${pg.escapeIdentifier(empty)}`));
});

afterAll(async () => {
  await sandbox.close();
  await deleteKeysWithPrefix(prefix);
  await dropDatabase(missing);
  await dropDatabase(empty);
  dir.remove();
});

describe("a DATABASE_URL naming a database that does not exist", () => {
  // Only migrate creates a database: a typo elsewhere must not start a second, empty warehouse
  // (the worker used to create it, migrate it and take the real queue's jobs into it).
  it.each([
    [["worker"]],
    [["sync", "--only", "dsps"]],
    [["plan"]],
    [["status"]],
    [["backfill", "--from", "2026-01-25", "--to", "2026-01-25", "--only", "trend_totals"]],
    [["replay", "--only", "dsps"]],
    [["retry-failed"]],
    [["payouts", "request", "--amount", "150.00", "--yes"]],
  ])("etl %j names it, exits 2 and creates nothing", async (args) => {
    sandbox.resetStats();
    const result = await etl(args, missing);
    expect(result.code, result.stdout + result.stderr).toBe(2);
    // The worker's fatal error is a JSON line, as its logs are (no terminal here).
    const said =
      args[0] === "worker"
        ? result.stderr
            .trim()
            .split("\n")
            .map((line) => JSON.parse(line) as { level: number; msg: string })
            .map(({ level, msg }) => (level === 60 ? msg : ""))
            .join("\n")
        : result.stderr;
    expect(said).toContain(`database "${missing}" does not exist`);
    expect(said).toContain("etl migrate");
    expect(await databaseExists(missing)).toBe(false);
    expect(sandbox.stats().requests).toBe(0);
  });
});

describe("etl plan", () => {
  it("migrates nothing: on a warehouse not migrated it says so and leaves it as it was", async () => {
    const result = await etl(["plan"], empty);
    expect(result.code, result.stdout + result.stderr).toBe(2);
    expect(result.stderr).toContain("etl migrate");
    expect(result.stderr).toContain("a plan changes nothing");
    const schemas = await withDatabaseClient(
      (c) => c.query("select 1 from information_schema.schemata where schema_name = 'etl'"),
      empty,
    );
    expect(schemas.rowCount).toBe(0);
    expect((await etl(["migrate"], empty)).code).toBe(0);
    const planned = await etl(["plan"], empty);
    expect(planned.code, planned.stdout + planned.stderr).toBe(0);
    expect(planned.stdout).toContain("total");
  });
});
