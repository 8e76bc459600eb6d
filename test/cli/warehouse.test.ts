import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Sandbox, startSandbox } from "../../sandbox/index.js";
import { etlEnv, etlIn, runCli } from "../helpers/cli.js";
import { deleteKeysWithPrefix, uniquePrefix } from "../helpers/redis.js";
import { makeTempDir } from "../helpers/temp-dir.js";
import { PG_HOST_URL, withDatabaseClient } from "../helpers/warehouse.js";

const prefix = uniquePrefix("cli-warehouse");
const dir = makeTempDir("cli-warehouse");
const database = `music_etl_test_cli_${randomBytes(4).toString("hex")}`;
const untouched = `music_etl_test_cli_untouched_${randomBytes(4).toString("hex")}`;
let sandbox: Sandbox;

const env = () => etlEnv(sandbox, `${PG_HOST_URL}/${database}`, null, { LOG_LEVEL: "silent" });
const etl = etlIn(dir.path, env);

/** `etl <args>` started at once, not in turn with the file's other commands (see runCli). */
const etlAtOnce = (args: readonly string[], extra: Record<string, string> = {}) =>
  runCli(args, { cwd: dir.path, env: { ...env(), ...extra }, atOnce: true });

beforeAll(async () => {
  sandbox = await startSandbox({ apiKey: "cli-warehouse-key-123", today: "2026-01-31" });
  dir.write("etl.config.json", {
    start_date: "2026-01-01",
    redis_prefix: prefix,
    requests_per_second: 1000,
    max_concurrency: 8,
    max_retries: 0,
  });
});

afterAll(async () => {
  await sandbox.close();
  await deleteKeysWithPrefix(prefix);
  await withDatabaseClient((c) =>
    c.query(`drop database if exists ${pg.escapeIdentifier(database)} with (force)`),
  );
  dir.remove();
});

describe("etl migrate", () => {
  it("creates the database and applies the migrations, safely from two processes at once", async () => {
    const both = await Promise.all([etlAtOnce(["migrate"]), etlAtOnce(["migrate"])]);
    expect(both.map((r) => r.code)).toEqual([0, 0]);
    const again = await etl(["migrate"]);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain("the warehouse is up to date");
    const applied = await withDatabaseClient(
      async (c) =>
        (await c.query("select count(*)::int as n from etl.kysely_migration")).rows[0] as {
          n: number;
        },
      database,
    );
    expect(applied.n).toBeGreaterThan(0);
  });

  it("needs no upstream settings", async () => {
    const result = await etl(["migrate"], { MUSIC_API_URL: "", MUSIC_API_KEY: "" });
    expect(result.code).toBe(0);
  });

  it("comments every table and every column of the warehouse for BI users", async () => {
    const missing = await withDatabaseClient(
      async (c) =>
        (
          await c.query<{ what: string }>(`
            select n.nspname || '.' || cl.relname as what
            from pg_class cl join pg_namespace n on n.oid = cl.relnamespace
            where cl.relkind in ('r', 'v') and n.nspname in ('etl', 'catalogue', 'sales', 'artist_stats', 'royalties', 'analytics')
              and cl.relname not like 'kysely_%' and obj_description(cl.oid, 'pg_class') is null
            union all
            select n.nspname || '.' || cl.relname || '.' || a.attname
            from pg_attribute a join pg_class cl on cl.oid = a.attrelid join pg_namespace n on n.oid = cl.relnamespace
            where cl.relkind in ('r', 'v') and a.attnum > 0 and not a.attisdropped
              and n.nspname in ('etl', 'catalogue', 'sales', 'artist_stats', 'royalties', 'analytics')
              and cl.relname not like 'kysely_%' and col_description(cl.oid, a.attnum) is null`)
        ).rows.map((r) => r.what),
      database,
    );
    expect(missing).toEqual([]);
  });
});

describe("etl sync and status", () => {
  it("syncs the named streams over a range and prints a summary per stream", async () => {
    const result = await etl([
      "sync",
      "--only",
      "trends",
      "--from",
      "2026-01-03",
      "--to",
      "2026-01-04",
    ]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const lines = result.stdout.trim().split("\n");
    expect(lines[0]).toMatch(
      /^stream\s+partitions\s+failed\s+requests\s+rows\s+rejected\s+warned\s+seconds$/,
    );
    expect(lines.find((l) => l.startsWith("trend_items"))).toMatch(
      /^trend_items\s+20\s+0\s+\d+\s+\d+\s+0\s+0\s+[\d.]+$/,
    );
    expect(lines.find((l) => l.startsWith("total"))).toMatch(/^total\s+50\s+0\s+/);
    // Then where its record is: the run its attempts name.
    expect(lines.at(-1)).toMatch(/^run run-[0-9a-f-]+: `etl runs show run-[0-9a-f-]+` prints/);
  });

  it("shows per stream the last success, days behind and failed partitions", async () => {
    const result = await etl(["status"], { MUSIC_API_URL: "", MUSIC_API_KEY: "" });
    expect(result.code).toBe(0);
    const line = result.stdout.split("\n").find((l) => l.startsWith("trend_totals"));
    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    const behind = Math.round((Date.parse(yesterday) - Date.parse("2026-01-04")) / 86_400_000);
    expect(result.stdout).toMatch(
      /^queue: \d+ waiting, \d+ prioritized, \d+ active, \d+ delayed, \d+ waiting-children, \d+ failed, \d+ completed$/m,
    );
    expect(result.stdout).toMatch(/^workers: none running/m);
    expect(result.stdout).toMatch(/^scheduler\s+pattern\s+time zone\s+next run \(UTC\)$/m);
    expect(result.stdout).toMatch(
      /^request rate: 1000 req\/s \(requests_per_second, shared by every worker\)$/m,
    );
    expect(line).toMatch(
      new RegExp(
        `^trend_totals\\s+trends\\s+.+\\s+\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}\\s+-\\s+${behind}\\s+\\d+\\s+0$`,
      ),
    );
  });

  // The commands given a Redis that never answers wait for it (QUEUE_CONNECT_MS): side by side.
  it.concurrent(
    "shows the warehouse when Redis is unreachable, says so, and exits 1",
    async ({ expect }) => {
      const result = await etlAtOnce(["status"], { REDIS_URL: "redis://127.0.0.1:1" });
      expect(result.code).toBe(1);
      expect(result.stdout).toMatch(
        /^trend_totals\s+trends\s+.+\s+\d{4}-\d{2}-\d{2} \d{2}:\d{2}\s+-\s+\d+\s+\d+\s+0$/m,
      );
      expect(result.stdout).toMatch(
        /^queue: Redis unreachable at redis:\/\/127\.0\.0\.1:1 \(.*\): is it running, and is REDIS_URL right\?$/m,
      );
    },
  );

  it.concurrent.for([["backfill", "--from", "2026-01-05", "--to", "2026-01-05"], ["retry-failed"]])(
    "%s: says Redis is unreachable and exits 1 instead of waiting for it",
    async (args, { expect }) => {
      const result = await etlAtOnce(args, { REDIS_URL: "redis://127.0.0.1:1" });
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(
        /^error: Redis unreachable at redis:\/\/127\.0\.0\.1:1 \(.*\): nothing was done; is it running, and is REDIS_URL right\?$/m,
      );
    },
  );

  it("exits 1 naming the failed partitions when the upstream fails, and status lists them", async () => {
    sandbox.setKnobs({ faultRate: 1, faults: ["error500"] });
    try {
      const result = await etl([
        "sync",
        "--only",
        "trend_totals",
        "--from",
        "2026-01-05",
        "--to",
        "2026-01-05",
      ]);
      expect(result.code).toBe(1);
      expect(result.stdout).toContain("5 partitions failed:");
      expect(result.stdout).toMatch(/trend_totals 2026-01-05\|dsp: trends\.total .*HTTP 500/);
    } finally {
      sandbox.setKnobs({ faultRate: 0 });
    }
    const status = await etl(["status"]);
    expect(status.stdout).toMatch(
      /^trend_totals .*\s5\s+2026-01-05\|asset, 2026-01-05\|dsp, 2026-01-05\|label, \.\.\.$/m,
    );
  });

  it("exits 4, never 0, when a list may hold more than was read, and status says so", async () => {
    // A next-page link to another origin is never followed: the payouts list may be incomplete.
    sandbox.setKnobs({
      shapes: { royaltiesPaging: "next-link", foreignNextLink: "http://127.0.0.1:9" },
    });
    try {
      const result = await etl(["sync", "--only", "payouts"]);
      expect(result.code).toBe(4);
      expect(result.stdout).toContain("1 partitions need attention");
      expect(result.stdout).toMatch(/payouts all: the next-page link leads outside the upstream/);
    } finally {
      sandbox.setKnobs({ shapes: { royaltiesPaging: "none", foreignNextLink: null } });
    }
    const status = await etl(["status"]);
    expect(status.stdout).toMatch(/^payouts .*1 partitions possibly incomplete \(all\)$/m);
    const clean = await etl(["sync", "--only", "payouts"]);
    expect(clean.code).toBe(0);
    expect((await etl(["status"])).stdout).not.toMatch(/^payouts .*possibly incomplete/m);
  });

  it("names the fields it could not type when the upstream drifts, and exits 4, never 0", async () => {
    // A field the spec shows keeps its declared type: a value it cannot hold is untyped. (An
    // unshown field's discovered column widens instead.)
    sandbox.setKnobs({ drift: { malformed: true } });
    try {
      const result = await etl(["sync", "--only", "payouts"]);
      expect(result.code).toBe(4);
      expect(result.stdout).toContain("Values that could not be typed");
      expect(result.stdout).toMatch(
        /payouts all: \d+ values could not be typed: created_at \(instant\), amount \(money\)/,
      );
      expect(result.stdout).toMatch(/^ {2}payouts\s+amount\s+money\s+\d+\s+"\d+,\d+"/m);
    } finally {
      sandbox.setKnobs({ drift: { malformed: false } });
    }
  });

  it("stops at once with exit 3 when the key is refused, after one request", async () => {
    sandbox.resetStats();
    const result = await etl(
      ["sync", "--only", "trends", "--from", "2026-01-06", "--to", "2026-01-06"],
      {
        MUSIC_API_KEY: "refused-key-0000",
      },
    );
    expect(result.code).toBe(3);
    expect(result.stdout + result.stderr).toContain("check MUSIC_API_KEY");
    expect(sandbox.stats().requests).toBe(1);
  });

  it.each([
    [["--from", "2026-01-05", "--to", "2026-01-02"], "--from 2026-01-05 is after --to 2026-01-02"],
    [["--from", "2026-02-30"], "--from 2026-02-30 is not a day of the calendar"],
    [["--from", "2026-2-3"], '--from must be a calendar date written YYYY-MM-DD (got "2026-2-3")'],
    [["--to", "2999-01-01"], "is in the future"],
    [["--only", "trends,nonsense"], 'unknown stream "nonsense"'],
    [["--only", "trend"], 'unknown stream "trend" (did you mean "trends"?)'],
  ])("refuses %j with exit 2 and writes nothing", async (args, message) => {
    const result = await etl(["sync", ...args], { DATABASE_URL: `${PG_HOST_URL}/${untouched}` });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
    const exists = await withDatabaseClient((c) =>
      c.query("select 1 from pg_database where datname = $1", [untouched]),
    );
    expect(exists.rowCount).toBe(0);
  });
});
