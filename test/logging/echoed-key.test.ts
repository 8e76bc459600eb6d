import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Redis } from "ioredis";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REDACTED } from "../../src/logging/redact-secrets.js";
import { type CredentialEchoStatus, type Sandbox, startSandbox } from "../../sandbox/index.js";
import { type CliResult, etlEnv, runCli } from "../helpers/cli.js";
import { deleteKeysWithPrefix, REDIS_URL, uniquePrefix } from "../helpers/redis.js";
import { makeTempDir } from "../helpers/temp-dir.js";
import { createTestWarehouse, type TestWarehouse } from "../helpers/warehouse.js";
import { endProcesses, spawnWorker, type WorkerProcess } from "../helpers/worker-process.js";
import { until } from "../helpers/until.js";

// The acceptance test of the key's confinement: an upstream echoes the key in a 400, a 401 and a
// 2xx failure body while a worker and the commands run against it, and then the key is looked
// for everywhere a person or a program could read it.

/** The key's own part: hex, so it reads the same raw, JSON-escaped or URL-encoded. */
const MARK = randomBytes(12).toString("hex");
/** Distinctive, and with characters JSON and URLs escape. */
const KEY = `etl-echo/"${MARK}"+key`;
/** A part of the key in any of its forms, a shortened one too. */
const NEEDLES = [MARK.slice(0, 12), MARK.slice(-12)];
const DAY = "2026-01-02";

const prefix = uniquePrefix("echoed-key");
const dir = makeTempDir("echoed-key");
let sandbox: Sandbox;
let warehouse: TestWarehouse;
let worker: WorkerProcess | undefined;
/** Everything a person or a program was shown, each with where it was shown. */
const shown: [where: string, text: string][] = [];

beforeAll(async () => {
  sandbox = await startSandbox({ apiKey: KEY });
  warehouse = await createTestWarehouse("echoed-key");
  dir.write("etl.config.json", {
    start_date: "2026-01-01",
    territory_keys: ["all"],
    dsp_keys: ["all"],
    redis_prefix: prefix,
    max_retries: 1,
    job_attempts: 1,
    job_backoff_ms: 200,
    worker_concurrency: 2,
    credential_recheck_ms: 1_000,
    shutdown_grace_ms: 1_500,
    schedules: { catalogue: null, trends: null, artist_stats: null, royalties: null },
  });
});

afterAll(async () => {
  if (worker) await endProcesses([worker]);
  await sandbox?.close();
  await warehouse?.drop();
  await deleteKeysWithPrefix(prefix);
  dir.remove();
});

function env(): Record<string, string> {
  return etlEnv(
    { url: sandbox.url, apiKey: KEY },
    warehouse.url,
    join(dir.path, "etl.config.json"),
    {
      LOG_LEVEL: "debug",
    },
  );
}

/** `etl <args>`, its output kept to be searched. */
async function etl(args: readonly string[]): Promise<CliResult> {
  const result = await runCli(args, { cwd: dir.path, env: env() });
  shown.push([`etl ${args.join(" ")}`, result.stdout + result.stderr]);
  return result;
}

/** A backfill of one stream for the worker, followed until it ends. */
function backfill(stream: string): Promise<CliResult> {
  return etl(["backfill", "--from", DAY, "--to", DAY, "--only", stream, "--wait"]);
}

/** An operator page of the worker, its text kept to be searched. */
async function page(path: string): Promise<{ status: number; text: string }> {
  const response = await fetch(`${worker?.operatorUrl}${path}`);
  const text = await response.text();
  shown.push([`GET ${path}`, text]);
  return { status: response.status, text };
}

function echo(status: CredentialEchoStatus | null): void {
  sandbox.setKnobs({ echoCredential: status });
}

/** The keys of one test's Redis prefix with their values, whatever type each is of. */
async function redisContents(): Promise<string[]> {
  const redis = new Redis(REDIS_URL);
  const contents: string[] = [];
  try {
    let cursor = "0";
    do {
      const [next, keys] = await redis.scan(cursor, "MATCH", `${prefix}*`, "COUNT", 1000);
      cursor = next;
      for (const key of keys) contents.push(`${key} = ${await redisValue(redis, key)}`);
    } while (cursor !== "0");
  } finally {
    redis.disconnect();
  }
  return contents;
}

async function redisValue(redis: Redis, key: string): Promise<string> {
  const type = await redis.type(key);
  switch (type) {
    case "string":
      return (await redis.get(key)) ?? "";
    case "hash":
      return JSON.stringify(await redis.hgetall(key));
    case "list":
      return JSON.stringify(await redis.lrange(key, 0, -1));
    case "set":
      return JSON.stringify(await redis.smembers(key));
    case "zset":
      return JSON.stringify(await redis.zrange(key, 0, -1, "WITHSCORES"));
    case "stream":
      return JSON.stringify(await redis.xrange(key, "-", "+"));
    case "none":
      return "(gone)";
    default:
      throw new Error(`${key}: Redis type ${type} not read by this test`);
  }
}

/** Rows of every table of the test database holding a needle, as `schema.table: count`. */
async function tablesHolding(needles: readonly string[]): Promise<string[]> {
  const tables = await warehouse.query<{ schema: string; name: string }>(
    `select table_schema as schema, table_name as name from information_schema.tables
      where table_type = 'BASE TABLE' and table_schema not in ('pg_catalog', 'information_schema')
      order by 1, 2`,
  );
  expect(tables.length).toBeGreaterThan(20);
  // The row as text: every column of it, text, jsonb, arrays and all.
  const holds = needles.map((_, i) => `strpos(t::text, $${i + 1}) > 0`).join(" or ");
  const holding: string[] = [];
  for (const { schema, name } of tables) {
    const table = `${pg.escapeIdentifier(schema)}.${pg.escapeIdentifier(name)}`;
    const [row] = await warehouse.query<{ n: number }>(
      `select count(*)::int as n from ${table} t where ${holds}`,
      [...needles],
    );
    if ((row?.n ?? 0) > 0) holding.push(`${schema}.${name}: ${row?.n}`);
  }
  return holding;
}

describe("an upstream that echoes the API key in its errors", () => {
  it("echoes it in a 400, a 401 and a failure body: the texts the rest must keep clean", async () => {
    for (const status of [400, 401, 200] as const) {
      echo(status);
      const response = await fetch(`${sandbox.url}/api/v1/getDsps/all`, {
        headers: { authorization: `Bearer ${KEY}` },
      });
      expect(response.status).toBe(status);
      expect(await response.text()).toContain(JSON.stringify(KEY).slice(1, -1));
    }
    echo(null);
  });

  it("a worker refused at its start, then failing jobs on a 400 and on failure bodies", async () => {
    echo(401);
    worker = await spawnWorker({ cwd: dir.path, env: env() });
    await until(
      async () => (await page("/readyz")).text.includes("refused the credential"),
      60_000,
    );
    const refused = await page("/readyz");
    expect(refused.status).toBe(503);
    // The upstream's words reach the health check, with the key cut out of them.
    expect(refused.text).toContain(`Invalid token ${REDACTED}`);
    await page("/metrics");

    // A 400 is an answer past authentication: the next check accepts the credential.
    echo(400);
    await until(async () => (await page("/readyz")).status === 200);
    const badRequest = await backfill("territories");
    expect(badRequest.code, badRequest.stdout + badRequest.stderr).toBe(1);
    echo(200);
    const failureBody = await backfill("dsps");
    expect(failureBody.code, failureBody.stdout + failureBody.stderr).toBe(1);

    const failed = await page("/queues/api/queues?activeQueue=etl&status=failed&page=1");
    expect(failed.status).toBe(200);
    expect(failed.text).toContain(`Invalid request for the token ${REDACTED}`);
    expect(failed.text).toContain(`The token ${REDACTED} may not read this resource`);
    for (const path of ["/readyz", "/livez", "/metrics", "/queues"]) await page(path);
    worker.child.kill("SIGTERM");
    expect(await worker.exited).toBe(0);
    shown.push(["worker logs", worker.logs.join("\n") + worker.stdout()]);
  });

  it("the commands: check, sync and payouts request on a 400, a 401 and a failure body, then status", async () => {
    echo(400);
    const [check400, sync400, payout] = await Promise.all([
      etl(["check"]),
      etl(["sync", "--only", "territories"]),
      etl(["payouts", "request", "--amount", "150.00", "--yes"]),
    ]);
    expect(check400.code).toBe(1);
    expect(check400.stdout).toContain(`HTTP 400: Invalid request for the token ${REDACTED}`);
    expect(sync400.code, sync400.stdout + sync400.stderr).toBe(1);
    expect(payout.code, payout.stdout + payout.stderr).toBe(1);
    expect(payout.stdout).toContain(`refused: Invalid request for the token ${REDACTED}`);

    echo(401);
    const [check401, sync401] = await Promise.all([
      etl(["check"]),
      etl(["sync", "--only", "dsps"]),
    ]);
    expect(check401.code).toBe(3);
    expect(check401.stdout).toContain(`401 Invalid token ${REDACTED}`);
    expect(sync401.code).toBe(3);

    echo(200);
    const sync200 = await etl(["sync", "--only", "dsps"]);
    expect(sync200.code, sync200.stdout + sync200.stderr).toBe(1);

    echo(null);
    const html = join(dir.path, "status.html");
    await etl(["status", "--html", html]);
    shown.push(["status page", readFileSync(html, "utf8")]);
  });

  it("leaves it nowhere: output, logs, operator pages, every table, every Redis key", async () => {
    // Where the upstream's words were kept, the key was cut out of them: the search below looks
    // where the echo went, and would find it there.
    const kept = await warehouse.query<{ what: string; n: number }>(
      `select 'attempts.error' as what, count(*)::int as n from etl.attempts where error like '%' || $1 || '%'
       union all select 'attempts.failure_body', count(*)::int from etl.attempts where failure_body like '%' || $1 || '%'
       union all select 'stream_state.last_error', count(*)::int from etl.stream_state where last_error like '%' || $1 || '%'
       union all select 'payout_requests.response', count(*)::int from royalties.payout_requests where response::text like '%' || $1 || '%'`,
      [REDACTED],
    );
    for (const { what, n } of kept) expect(n, what).toBeGreaterThan(0);
    const redis = await redisContents();
    expect(
      redis.some((entry) => entry.includes(REDACTED)),
      "failed jobs in Redis",
    ).toBe(true);
    shown.push(["redis", redis.join("\n")]);

    expect(shown.length).toBeGreaterThan(10);
    const leaks = shown.filter(([, text]) => NEEDLES.some((needle) => text.includes(needle)));
    expect({
      shown: leaks.map(([where]) => where),
      tables: await tablesHolding(NEEDLES),
    }).toEqual({ shown: [], tables: [] });
  });
});
