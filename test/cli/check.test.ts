import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { type AddressInfo, createServer, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Sandbox, startSandbox } from "../../sandbox/index.js";
import { CHECK_DEADLINE_MS } from "../../src/cli/commands/check.js";
import { CLI_ENTRY, runCli } from "../helpers/cli.js";
import { deleteKeysWithPrefix, REDIS_URL, uniquePrefix } from "../helpers/redis.js";
import { makeTempDir } from "../helpers/temp-dir.js";
import { PG_HOST_URL, withDatabaseClient } from "../helpers/warehouse.js";
import { HANG_MS } from "../helpers/hang-limit.js";

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

  it("tries the upstream once whatever max_retries says, and writes nothing into its table", async () => {
    dir.write("six-retries.json", {
      start_date: "2026-01-01",
      territory_keys: ["all"],
      redis_prefix: prefix,
      max_retries: 6,
    });
    sandbox.resetStats();
    sandbox.setKnobs({ faultRate: 1, faults: ["error500"] });
    try {
      const env = {
        PATH: process.env.PATH ?? "",
        MUSIC_API_URL: sandbox.url,
        MUSIC_API_KEY: sandbox.apiKey,
        REDIS_URL,
        DATABASE_URL: `${PG_HOST_URL}/postgres`,
        ETL_CONFIG: "six-retries.json",
        LOG_LEVEL: "debug",
      };
      // Standard output and error on one pipe, as a terminal or `2>&1` shows them.
      const merged = await new Promise<string>((done) => {
        execFile(
          "sh",
          [
            "-c",
            `"${process.execPath}" ${CLI_ENTRY.map((arg) => `"${arg}"`).join(" ")} check 2>&1`,
          ],
          { cwd: dir.path, env, timeout: HANG_MS },
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
      expect(lines[table + 3]).toMatch(/^upstream {2}FAIL {2}MUSIC_API_URL=http:\/\/.*HTTP 500/);
      for (const line of lines.slice(table + 4)) expect(JSON.parse(line)).toHaveProperty("level");
      expect(sandbox.stats().requests).toBe(1);
    } finally {
      sandbox.setKnobs({ faultRate: 0 });
    }
  });

  it("names the variable of each dependency it cannot reach, with one try each", async () => {
    const closed = await closedPort();
    const result = await check(sandbox.apiKey, {
      DATABASE_URL: `postgres://localhost:${closed}/music_etl`,
      MUSIC_API_URL: `http://127.0.0.1:${closed}`,
    });
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(
      new RegExp(
        `^postgres {2}FAIL {2}DATABASE_URL=postgres://localhost:${closed}/music_etl: .*ECONNREFUSED`,
        "m",
      ),
    );
    expect(result.stdout).toMatch(
      new RegExp(
        `^upstream {2}FAIL {2}MUSIC_API_URL=http://127.0.0.1:${closed}: .*connection failed \\(ECONNREFUSED\\)`,
        "m",
      ),
    );
    // One try: the client logs a retry at warn, and there is none.
    expect(result.stderr).toBe("");

    const redis = await check(sandbox.apiKey, { REDIS_URL: `redis://127.0.0.1:${closed}` });
    expect(redis.code).toBe(1);
    expect(redis.stdout).toMatch(
      new RegExp(`^redis {5}FAIL {2}REDIS_URL=redis://127.0.0.1:${closed}: .*ECONNREFUSED`, "m"),
    );
  });

  it.for([["status"], ["sync", "--only", "territories"], ["migrate"]])(
    "%s names DATABASE_URL when it cannot reach Postgres",
    async (args) => {
      const closed = await closedPort();
      const env = { MUSIC_API_URL: sandbox.url, MUSIC_API_KEY: sandbox.apiKey, REDIS_URL };
      const postgres = await runCli(args, {
        cwd: dir.path,
        env: { ...env, DATABASE_URL: `postgres://localhost:${closed}/music_etl` },
      });
      expect(postgres.code).toBe(1);
      expect(postgres.stderr).toMatch(
        new RegExp(
          `^error: cannot reach Postgres at postgres://localhost:${closed}/music_etl \\(.*ECONNREFUSED.*\\): is it running, and is DATABASE_URL right\\?$`,
          "m",
        ),
      );
    },
  );

  it("gives an upstream that never answers one request and its deadline, naming MUSIC_API_URL", async () => {
    const requests: string[] = [];
    const sockets: Socket[] = [];
    const silent = createServer((socket) => {
      sockets.push(socket);
      socket.on("data", (chunk) =>
        requests.push(
          ...String(chunk)
            .split("\r\n")
            .filter((line) => /^GET /.test(line)),
        ),
      );
      socket.on("error", () => undefined);
    });
    await new Promise<void>((done) => silent.listen(0, "127.0.0.1", done));
    try {
      const { port } = silent.address() as AddressInfo;
      const result = await check(sandbox.apiKey, {
        DATABASE_URL: `${PG_HOST_URL}/postgres`,
        MUSIC_API_URL: `http://127.0.0.1:${port}`,
      });
      expect(result.code).toBe(1);
      expect(result.stdout).toMatch(
        new RegExp(
          `^upstream {2}FAIL {2}MUSIC_API_URL=http://127.0.0.1:${port}: .*no complete response within ${CHECK_DEADLINE_MS} ms`,
          "m",
        ),
      );
      expect(requests).toHaveLength(1);
    } finally {
      for (const socket of sockets) socket.destroy();
      silent.close();
    }
  });

  it("looks up each configured UPC and artist id once and names those the upstream does not know", async () => {
    const [artist] = sandbox.data.socialArtists();
    const [product] = sandbox.data.products();
    dir.write("tracked.json", {
      start_date: "2026-01-01",
      territory_keys: ["all"],
      redis_prefix: prefix,
      upcs: [product?.upc, "0000000000001"],
      social_artist_ids: [artist?.cm_artist, 987654321],
      streaming_artist_ids: [artist?.music_streaming_1, "no-such-streaming-id"],
    });
    sandbox.resetStats();
    const result = await check(sandbox.apiKey, {
      DATABASE_URL: `${PG_HOST_URL}/postgres`,
      ETL_CONFIG: "tracked.json",
    });
    expect(result.code).toBe(1);
    const tracked = result.stdout.split("\n").filter((line) => line.startsWith("tracked "));
    expect(tracked).toEqual([
      expect.stringMatching(
        /^tracked {3}FAIL {2}not known upstream: UPC 0000000000001, social artist id 987654321, streaming artist id no-such-streaming-id; correct or remove them in .*tracked\.json$/,
      ),
    ]);
    // The territory look-up, then one request per id.
    expect(sandbox.stats().requests).toBe(7);

    dir.write("known.json", {
      start_date: "2026-01-01",
      territory_keys: ["all"],
      redis_prefix: prefix,
      upcs: [product?.upc],
      social_artist_ids: [artist?.cm_artist],
    });
    const known = await check(sandbox.apiKey, {
      DATABASE_URL: `${PG_HOST_URL}/postgres`,
      ETL_CONFIG: "known.json",
    });
    expect(known.code).toBe(0);
    expect(known.stdout).toMatch(/^tracked {3}ok {4}2 UPCs and artist ids, each known upstream$/m);
  });
});

describe("etl check against a rate limit", () => {
  /**
   * A sandbox of its own admitting `limit` requests a second, counted on `clock`: a test holds it
   * still, so whatever the machine's pace the requests it sends land in one of the limit's seconds.
   */
  async function limitedSandbox(limit: number, clock: () => number): Promise<Sandbox> {
    return startSandbox({ apiKey: sandbox.apiKey, clock, knobs: { requestsPerSecond: limit } });
  }

  function checkAt(limited: Sandbox, configFile: string) {
    return check(limited.apiKey, {
      MUSIC_API_URL: limited.url,
      DATABASE_URL: `${PG_HOST_URL}/postgres`,
      ETL_CONFIG: configFile,
    });
  }

  const trackedLines = (stdout: string) =>
    stdout.split("\n").filter((line) => line.startsWith("tracked "));

  it("waits once for what a 429 asks, and passes when that wait is enough", async () => {
    const [artist] = sandbox.data.socialArtists();
    const [product] = sandbox.data.products();
    dir.write("rate-200.json", {
      start_date: "2026-01-01",
      territory_keys: ["all"],
      redis_prefix: prefix,
      requests_per_second: 200,
      upcs: [product?.upc],
      social_artist_ids: [artist?.cm_artist],
    });
    // The upstream's second ends with its first 429: the wait that 429 asks for is enough.
    const held = Date.now();
    const limited: Sandbox = await limitedSandbox(2, () =>
      limited.stats().rateLimited > 0 ? held + 1000 : held,
    );
    try {
      const result = await checkAt(limited, "rate-200.json");
      expect(result.code).toBe(0);
      expect(trackedLines(result.stdout)).toEqual([
        "tracked   ok    2 UPCs and artist ids, each known upstream",
      ]);
      // The territories and one look-up fit the second; the other look-up was refused once, then
      // sent again after the wait and answered.
      const stats = limited.stats();
      expect(stats.rateLimited).toBe(1);
      expect(stats.requests).toBe(4);
    } finally {
      await limited.close();
    }
  });

  it('fails naming requests_per_second, its rate and the upstream\'s answer, and suggests "auto", when the wait is not enough', async () => {
    const [product] = sandbox.data.products();
    const tracked = { upcs: [product?.upc, "0000000000001"] };
    const base = { start_date: "2026-01-01", territory_keys: ["all"], redis_prefix: prefix };
    dir.write("fixed-200.json", { ...base, requests_per_second: 200, ...tracked });
    dir.write("auto.json", { ...base, requests_per_second: "auto", ...tracked });
    // Held still, the upstream's second never ends: after the territories it refuses everything.
    let held: number | null = Date.now();
    const limited = await limitedSandbox(1, () => held ?? Date.now());
    try {
      const fixed = await checkAt(limited, "fixed-200.json");
      expect(fixed.code).toBe(1);
      // Neither UPC is known or unknown: the unknown one is not named as unknown.
      expect(trackedLines(fixed.stdout)).toEqual([
        expect.stringMatching(
          /^tracked {3}FAIL {2}2 of 2 look-ups refused by the rate limit, again after the wait it asked for: at requests_per_second 200 req\/s the upstream answered HTTP 429, limit 1 req\/s, retry in 1000 ms; set requests_per_second to "auto" in .*fixed-200\.json, or to at most 1$/,
        ),
      ]);
      // Each look-up sent twice, the second time after the wait, and refused both times.
      expect(limited.stats().requests).toBe(5);
      expect(limited.stats().rateLimited).toBe(4);

      // An upstream that states no limit: the territories, now refused too, say to lower it.
      limited.setKnobs({ rateLimitHeaders: "retry-after-only" });
      const unstated = await checkAt(limited, "fixed-200.json");
      expect(unstated.code).toBe(1);
      expect(unstated.stdout).toMatch(
        /^upstream {2}FAIL {2}MUSIC_API_URL=http:\/\/.*: refused by the rate limit, again after the wait it asked for: at requests_per_second 200 req\/s the upstream answered HTTP 429, no limit stated, retry in 1000 ms; set requests_per_second to "auto" in .*fixed-200\.json, or lower it$/m,
      );
      limited.setKnobs({ rateLimitHeaders: "retry-after" });

      // Its seconds passing again, the upstream answers "auto", which keeps to the limit it
      // states: every look-up is answered, and the unknown UPC is named as such.
      held = null;
      const auto = await checkAt(limited, "auto.json");
      expect(auto.code).toBe(1);
      expect(trackedLines(auto.stdout)).toEqual([
        expect.stringMatching(
          /^tracked {3}FAIL {2}not known upstream: UPC 0000000000001; correct or remove it in .*auto\.json$/,
        ),
      ]);
    } finally {
      await limited.close();
    }
  });

  it('says "auto" goes on from the rate it learned when the upstream refuses the territories even so', async () => {
    dir.write("auto-only.json", {
      start_date: "2026-01-01",
      territory_keys: ["all"],
      redis_prefix: prefix,
      requests_per_second: "auto",
    });
    const held = Date.now();
    const limited = await limitedSandbox(1, () => held);
    try {
      // Another client spends the second's one request first.
      const spent = await fetch(`${limited.url}/api/v1/getDsps/all`, {
        headers: { authorization: `Bearer ${limited.apiKey}` },
      });
      expect(spent.status).toBe(200);
      const result = await checkAt(limited, "auto-only.json");
      expect(result.code).toBe(1);
      expect(result.stdout).toMatch(
        /^upstream {2}FAIL {2}MUSIC_API_URL=http:\/\/.*: refused by the rate limit, again after the wait it asked for: at requests_per_second auto \(1 req\/s, the limit the upstream states, learned by "auto"\) the upstream answered HTTP 429, limit 1 req\/s, retry in 1000 ms; "auto" goes on from the rate it learned: run check again$/m,
      );
      expect(limited.stats().rateLimited).toBe(2);
    } finally {
      await limited.close();
    }
  });

  it("counts a look-up that failed otherwise apart from the unknown ones, with why", async () => {
    const [product] = sandbox.data.products();
    dir.write("no-wait.json", {
      start_date: "2026-01-01",
      territory_keys: ["all"],
      redis_prefix: prefix,
      max_rate_limit_wait_ms: 0,
      upcs: [product?.upc, "0000000000001"],
    });
    const held = Date.now();
    const limited = await limitedSandbox(1, () => held);
    try {
      const result = await checkAt(limited, "no-wait.json");
      expect(result.code).toBe(1);
      expect(trackedLines(result.stdout)).toEqual([
        expect.stringMatching(
          /^tracked {3}FAIL {2}2 of 2 look-ups failed, so not known either way: UPC \S+: .*max_rate_limit_wait_ms\); UPC 0000000000001: .*max_rate_limit_wait_ms\)$/,
        ),
      ]);
      // A wait longer than the cap is not waited: one request each.
      expect(limited.stats().requests).toBe(3);
    } finally {
      await limited.close();
    }
  });
});

/** A port nothing listens on: one the system gave, then let go. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const { port } = server.address() as AddressInfo;
  await new Promise((done) => server.close(done));
  return port;
}
