import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import {
  AUDIENCE_DOMAINS,
  AUDIENCE_TYPES,
  PLAYLIST_STATUSES,
  STAT_SOURCES,
  STATS_TYPES,
} from "../../src/api/enums.js";
import { etlConfigSchema } from "../../src/config/etl-config-schema.js";
import { loadConfig } from "../../src/config/load-config.js";
import { schemaContractOf } from "../../src/config/schema-contract.js";
import { loadAppConfig } from "../../src/cli/load-app-config.js";
import { ConfigError } from "../../src/errors.js";
import { pgConnectionConfig } from "../../src/warehouse/pg-connection-config.js";
import { runCli } from "../helpers/cli.js";
import { keysWithPrefix, uniquePrefix } from "../helpers/redis.js";
import { makeTempDir } from "../helpers/temp-dir.js";

const dir = makeTempDir("config");
const prefix = uniquePrefix("config");
const untouchedDatabase = `music_etl_config_${randomBytes(4).toString("hex")}`;
const validFile = { start_date: "2026-01-01", redis_prefix: prefix };
const validEnv = {
  MUSIC_API_URL: "http://127.0.0.1:9",
  MUSIC_API_KEY: "config-test-key",
  DATABASE_URL: `postgres://127.0.0.1:5432/${untouchedDatabase}`,
  REDIS_URL: "redis://127.0.0.1:6379",
};

afterAll(() => dir.remove());

interface BadCase {
  readonly name: string;
  readonly field: string;
  readonly file?: unknown;
  readonly env?: Record<string, string>;
  readonly raw?: string;
  /** What the line says besides the field. */
  readonly says?: string;
}

const cases: BadCase[] = [
  { name: "missing start_date", field: "start_date", file: { upcs: ["1"] } },
  {
    name: "start_date not a calendar day",
    field: "start_date",
    file: { start_date: "2026-02-30" },
  },
  {
    name: "start_date in the wrong format",
    field: "start_date",
    file: { start_date: "01/02/2026" },
  },
  { name: "start_date in the future", field: "start_date", file: { start_date: "2999-01-01" } },
  {
    name: "negative rate",
    field: "requests_per_second",
    file: { ...validFile, requests_per_second: -1 },
  },
  {
    name: "rate as text",
    field: "requests_per_second",
    file: { ...validFile, requests_per_second: "fast" },
  },
  {
    name: "fractional concurrency",
    field: "max_concurrency",
    file: { ...validFile, max_concurrency: 1.5 },
  },
  { name: "negative lookback", field: "lookback_days", file: { ...validFile, lookback_days: -3 } },
  {
    name: "lookback of a family that does not exist",
    field: "lookback.sales",
    file: { ...validFile, lookback: { sales: { days: 2 } } },
  },
  {
    name: "negative lookback of a family",
    field: "lookback.artist_stats.days",
    file: { ...validFile, lookback: { artist_stats: { days: -1 } } },
  },
  {
    name: "fractional lookback of a family",
    field: "lookback.catalogue.days",
    file: { ...validFile, lookback: { catalogue: { days: 1.5 } } },
  },
  {
    name: "lookback of a family given as a number of days",
    field: "lookback.royalties",
    file: { ...validFile, lookback: { royalties: 3 } },
  },
  {
    name: "unknown key in a family's lookback",
    field: "lookback.trends.hours",
    file: { ...validFile, lookback: { trends: { hours: 23 } } },
  },
  {
    name: "negative refetch interval",
    field: "lookback.trends.refetch_after_hours",
    file: { ...validFile, lookback: { trends: { refetch_after_hours: -1 } } },
  },
  {
    name: "refetch interval as text",
    field: "lookback.trends.refetch_after_hours",
    file: { ...validFile, lookback: { trends: { refetch_after_hours: "23" } } },
  },
  {
    name: "stat source the spec does not list",
    field: "artist_stats.stat_sources[1]",
    file: { ...validFile, artist_stats: { stat_sources: ["social_1", "social_9"] } },
  },
  {
    name: "audience type the spec does not list",
    field: "artist_stats.social_audience.audience_types[0]",
    file: { ...validFile, artist_stats: { social_audience: { audience_types: ["fans"] } } },
  },
  {
    name: "playlist status the spec does not list",
    field: "artist_stats.playlists.statuses[0]",
    file: { ...validFile, artist_stats: { playlists: { statuses: ["all"] } } },
  },
  {
    name: "radio history of no day",
    field: "artist_stats.radio_history_days",
    file: { ...validFile, artist_stats: { radio_history_days: 0 } },
  },
  { name: "unknown key", field: "upc", file: { ...validFile, upc: ["123"] } },
  {
    name: "mistyped key",
    field: "lookback_dayz",
    file: { ...validFile, lookback_dayz: 3 },
    says: 'is not a known key (did you mean "lookback_days"?)',
  },
  {
    name: "mistyped family of a lookback",
    field: "lookback.trend",
    file: { ...validFile, lookback: { trend: { days: 3 } } },
    says: '(did you mean "trends"?)',
  },
  {
    name: "mistyped key in a family's lookback",
    field: "lookback.trends.dayz",
    file: { ...validFile, lookback: { trends: { dayz: 3 } } },
    says: '(did you mean "days"?)',
  },
  {
    name: "NUL in a name",
    field: "artist_names[1]",
    file: { ...validFile, artist_names: ["a", "b\u0000"] },
    says: "holds a control character",
  },
  {
    name: "line feed in a UPC",
    field: "upcs[0]",
    file: { ...validFile, upcs: ["123\n456"] },
    says: "holds a control character",
  },
  { name: "list given as text", field: "upcs", file: { ...validFile, upcs: "123" } },
  {
    name: "empty string in a list",
    field: "artist_names[1]",
    file: { ...validFile, artist_names: ["a", " "] },
  },
  {
    name: "non-integer social id",
    field: "social_artist_ids[0]",
    file: { ...validFile, social_artist_ids: ["abc"] },
  },
  {
    name: "bad chart country",
    field: "charts[0].country_code",
    file: { ...validFile, charts: [{ country_code: "fr", genre: "Pop" }] },
  },
  {
    name: "bad redis prefix",
    field: "redis_prefix",
    file: { ...validFile, redis_prefix: "has space" },
  },
  { name: "invalid JSON", field: "(file)", raw: "{ start_date: 2026-01-01 " },
  {
    name: "a trailing comma",
    field: "(file)",
    raw: `{\n  "start_date": "2026-01-01",\n  "upcs": ["1", "2"],\n}\n`,
    says: "line 4, column 1: expected a property name in double quotes (a comma too many",
  },
  {
    name: "a list left open",
    field: "(file)",
    raw: `{\n  "start_date": "2026-01-01",\n  "upcs": ["1", "2"\n}\n`,
    says: "line 4, column 1: expected ','",
  },
  { name: "missing file", field: "(file)", env: { ETL_CONFIG: "./nowhere.json" } },
  { name: "API URL not a URL", field: "MUSIC_API_URL", env: { MUSIC_API_URL: "not a url" } },
  { name: "missing API key", field: "MUSIC_API_KEY", env: { MUSIC_API_KEY: "" } },
  {
    name: "database URL of another kind",
    field: "DATABASE_URL",
    env: { DATABASE_URL: "mysql://x/y" },
  },
  { name: "unknown log level", field: "LOG_LEVEL", env: { LOG_LEVEL: "loud" } },
];

describe("configuration errors on the command line", () => {
  // Started together (runCli bounds how many run at once); each case waits for its own only.
  const runs = cases.map((bad, i) => {
    const name = `case-${i}.json`;
    dir.write(name, bad.raw ?? bad.file ?? validFile);
    return runCli(["check"], {
      cwd: dir.path,
      env: { ...validEnv, ETL_CONFIG: `./${name}`, ...bad.env },
    });
  });
  const results = Promise.all(runs);

  it.each(cases.map((bad, i) => [bad.name, i] as const))(
    "%s: exit 2 and one line naming the field",
    async (_, i) => {
      const result = await runs[i];
      const bad = cases[i];
      expect(result?.code).toBe(2);
      expect(result?.stdout).toBe("");
      const lines = result?.stderr.trim().split("\n") ?? [];
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/^config error: /);
      expect(lines[0]).toContain(`: ${bad?.field}: `);
      if (bad?.says) expect(lines[0]).toContain(bad.says);
    },
  );

  it("never prints the API key, even when it is the bad value", async () => {
    for (const result of await results) {
      expect(result.stdout + result.stderr).not.toContain(validEnv.MUSIC_API_KEY);
    }
  });

  it("writes nothing anywhere: no Redis key, no database", async () => {
    await results;
    expect(await keysWithPrefix(prefix)).toEqual([]);
    const client = new pg.Client(pgConnectionConfig("postgres://127.0.0.1:5432/postgres"));
    await client.connect();
    try {
      const { rowCount } = await client.query("select 1 from pg_database where datname = $1", [
        untouchedDatabase,
      ]);
      expect(rowCount).toBe(0);
    } finally {
      await client.end();
    }
  });
});

describe("loadConfig", () => {
  it("takes a schema_contract per stream or family, and refuses one naming neither", () => {
    dir.write("contracts.json", {
      start_date: "2026-01-01",
      schema_contract: { default: "freeze", artist_stats: "evolve", dsps: "freeze" },
    });
    const env = { ...validEnv, ETL_CONFIG: "contracts.json" };
    const { etl } = loadAppConfig({ cwd: dir.path, env });
    const contract = (name: string, family: string) =>
      schemaContractOf(etl.schema_contract, { name, family });
    expect(contract("artist_stats_radio", "artist_stats")).toBe("evolve");
    expect(contract("dsps", "catalogue")).toBe("freeze");
    expect(contract("incomes", "royalties")).toBe("freeze");

    dir.write("contract-typo.json", {
      start_date: "2026-01-01",
      schema_contract: { dsp: "freeze", artist_stats: "evolve" },
    });
    const typo = { ...validEnv, ETL_CONFIG: "contract-typo.json" };
    const error = (() => {
      try {
        loadAppConfig({ cwd: dir.path, env: typo });
      } catch (thrown) {
        return thrown;
      }
      return null;
    })();
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems).toEqual([
      { field: "schema_contract.dsp", problem: 'is not a stream or family (did you mean "dsps"?)' },
    ]);
  });

  it("reads a file saved with a byte order mark", () => {
    dir.write("bom.json", `\uFEFF${JSON.stringify({ start_date: "2026-01-01", upcs: ["7"] })}`);
    const config = loadConfig({ cwd: dir.path, env: { ...validEnv, ETL_CONFIG: "bom.json" } });
    expect(config.etl.upcs).toEqual(["7"]);
  });

  it("applies documented defaults and de-duplicates lists", () => {
    dir.write("defaults.json", { start_date: "2026-01-01", upcs: ["1", "1", "2"] });
    const config = loadConfig({ cwd: dir.path, env: { ...validEnv, ETL_CONFIG: "defaults.json" } });
    expect(config.etl).toMatchObject({
      upcs: ["1", "2"],
      artist_names: [],
      requests_per_second: "auto",
      max_concurrency: 4,
      // Twice the request slots: a job writing leaves its slot to another.
      worker_concurrency: 8,
      lookback_days: 7,
      redis_prefix: "music-etl:",
    });
    expect(config.env.LOG_LEVEL).toBe("info");
  });

  it("fetches every combination the spec lists unless the request plan narrows it", () => {
    dir.write("plan-default.json", { start_date: "2026-01-01" });
    dir.write("plan-narrow.json", {
      start_date: "2026-01-01",
      lookback_days: 5,
      lookback: {
        trends: { days: 2 },
        royalties: { refetch_after_hours: 6 },
        catalogue: { refetch_after_hours: 0.5 },
      },
      artist_stats: {
        stat_sources: ["social_2", "music_streaming_1", "social_2"],
        social_audience: { stats_types: ["country"] },
        playlists: { statuses: ["current"], curator_platforms: [] },
        radio_history_days: 30,
      },
    });
    const load = (file: string) =>
      loadConfig({ cwd: dir.path, env: { ...validEnv, ETL_CONFIG: file } }).etl;
    const all = load("plan-default.json");
    expect(all.artist_stats.stat_sources).toEqual(STAT_SOURCES);
    expect(all.artist_stats.social_audience).toEqual({
      domains: AUDIENCE_DOMAINS,
      audience_types: AUDIENCE_TYPES,
      stats_types: STATS_TYPES,
    });
    expect(all.artist_stats.playlists.statuses).toEqual(PLAYLIST_STATUSES);
    expect(all.artist_stats.radio_history_days).toBeNull();
    expect(all.lookback).toEqual({
      catalogue: { days: 7, refetch_after_hours: 0 },
      trends: { days: 7, refetch_after_hours: 23 },
      artist_stats: { days: 7, refetch_after_hours: 0 },
      royalties: { days: 7, refetch_after_hours: 0 },
    });
    const narrow = load("plan-narrow.json");
    // In the spec's order, once each.
    expect(narrow.artist_stats.stat_sources).toEqual(["music_streaming_1", "social_2"]);
    expect(narrow.artist_stats.social_audience.stats_types).toEqual(["country"]);
    expect(narrow.artist_stats.social_audience.domains).toEqual(AUDIENCE_DOMAINS);
    expect(narrow.artist_stats.playlists).toMatchObject({
      statuses: ["current"],
      curator_platforms: [],
    });
    expect(narrow.artist_stats.radio_history_days).toBe(30);
    expect(narrow.lookback).toEqual({
      catalogue: { days: 5, refetch_after_hours: 0.5 },
      trends: { days: 2, refetch_after_hours: 23 },
      artist_stats: { days: 5, refetch_after_hours: 0 },
      royalties: { days: 5, refetch_after_hours: 6 },
    });
    // A parsed config is a valid file, read back as itself (tests and tools re-parse them).
    expect(etlConfigSchema.parse(narrow)).toEqual(narrow);
  });

  it("gives every family lookback_days, trends included, where lookback names no days", () => {
    dir.write("lookback-days.json", { start_date: "2026-01-01", lookback_days: 3 });
    const { lookback } = loadConfig({
      cwd: dir.path,
      env: { ...validEnv, ETL_CONFIG: "lookback-days.json" },
    }).etl;
    expect(lookback).toEqual({
      catalogue: { days: 3, refetch_after_hours: 0 },
      trends: { days: 3, refetch_after_hours: 23 },
      artist_stats: { days: 3, refetch_after_hours: 0 },
      royalties: { days: 3, refetch_after_hours: 0 },
    });
  });

  it("derives worker_concurrency from max_concurrency unless it is given", () => {
    dir.write("slots.json", { start_date: "2026-01-01", max_concurrency: 3 });
    dir.write("given.json", {
      start_date: "2026-01-01",
      max_concurrency: 3,
      worker_concurrency: 2,
    });
    const load = (file: string) =>
      loadConfig({ cwd: dir.path, env: { ...validEnv, ETL_CONFIG: file } }).etl.worker_concurrency;
    expect(load("slots.json")).toBe(6);
    expect(load("given.json")).toBe(2);
  });

  it("reads .env from the working directory, and the real environment wins over it", () => {
    const envDir = makeTempDir("dotenv");
    try {
      envDir.write("etl.config.json", validFile);
      envDir.write(
        ".env",
        "MUSIC_API_URL=http://from-dotenv.test/\nMUSIC_API_KEY=dotenv-key\nLOG_LEVEL=debug\n",
      );
      const config = loadConfig({ cwd: envDir.path, env: { LOG_LEVEL: "warn" } });
      expect(config.env.MUSIC_API_URL).toBe("http://from-dotenv.test");
      expect(config.env.MUSIC_API_KEY).toBe("dotenv-key");
      expect(config.env.LOG_LEVEL).toBe("warn");
      expect(config.env.DATABASE_URL).toBe("postgres://127.0.0.1:5432/music_etl");
      expect(config.env.REDIS_URL).toBe("redis://127.0.0.1:6379");
    } finally {
      envDir.remove();
    }
  });

  it("reports every bad value, one problem per field", () => {
    dir.write("many.json", { start_date: "x", max_concurrency: 0, extra: true });
    try {
      loadConfig({ cwd: dir.path, env: { ...validEnv, ETL_CONFIG: "many.json" } });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).problems.map((p) => p.field).sort()).toEqual([
        "extra",
        "max_concurrency",
        "start_date",
      ]);
    }
  });
});
