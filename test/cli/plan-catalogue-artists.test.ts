import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sandboxTracking } from "../../sandbox/demo/sandbox-tracking.js";
import { type Sandbox, startSandbox } from "../../sandbox/index.js";
import { NO_PAGING } from "../../src/streams/paging.js";
import { selectStreams } from "../../src/streams/registry.js";
import { addDays, utcToday } from "../../src/time/calendar.js";
import { etlEnv, runCli } from "../helpers/cli.js";
import { tableRows, totalRow as total } from "../helpers/printed-table.js";
import { deleteKeysWithPrefix, uniquePrefix } from "../helpers/redis.js";
import { makeTempDir } from "../helpers/temp-dir.js";
import { createTestWarehouse, type TestWarehouse } from "../helpers/warehouse.js";

// `etl` plans and syncs from the real day: so does the sandbox, so that the series windows (from
// start_date to yesterday) and the charts a run asks for are ones it serves. Counts do not
// depend on the day.
const TODAY = utcToday();
const RANGE = ["--from", addDays(TODAY, -4), "--to", addDays(TODAY, -1)];
const prefix = uniquePrefix("plan_catalogue_artists");
const dir = makeTempDir("plan-catalogue-artists");
let sandbox: Sandbox;
let warehouse: TestWarehouse;
let env: Record<string, string>;

beforeAll(async () => {
  sandbox = await startSandbox({
    apiKey: "plan-catalogue-artists-key-0123456789",
    today: TODAY,
  });
  warehouse = await createTestWarehouse("plan_catalogue_artists");
  // No streaming id: one no run resolved counts as an artist of its own, the most it adds, and
  // may turn out to be one the catalogue links. The artists planned are then those synced.
  const config = dir.write("etl.config.json", {
    ...sandboxTracking(sandbox.data),
    streaming_artist_ids: [],
    start_date: addDays(TODAY, -4),
    requests_per_second: 1000,
    max_concurrency: 8,
    redis_prefix: prefix,
  });
  env = etlEnv(sandbox, warehouse.url, config, { LOG_LEVEL: "silent" });
});

afterAll(async () => {
  await sandbox.close();
  await warehouse.drop();
  await deleteKeysWithPrefix(prefix);
  dir.remove();
});

async function etl(args: readonly string[]): Promise<string> {
  const result = await runCli(args, { cwd: dir.path, env });
  expect(result.code, `${result.stdout}${result.stderr}`).toBe(0);
  return result.stdout;
}

const LEFT_OUT = "the total leaves out the artists the catalogue will find";

/** The rows of the per-artist streams in a plan, by stream: partitions and requests. */
function perArtistRows(plan: string): Record<string, string> {
  const rows = tableRows(plan);
  return Object.fromEntries(
    selectStreams(["artist_stats"]).map((s) => {
      const row = rows.get(s.name);
      return [s.name, `${row?.partitions} ${row?.requests}`];
    }),
  );
}

describe("etl plan and the artists the catalogue will find", () => {
  let withoutUpstream: string;
  let asked: string;

  it("says the total leaves them out, and why, when it cannot ask the upstream", async () => {
    const served = sandbox.stats().requests;
    const { MUSIC_API_KEY: _key, ...noKey } = env;
    const result = await runCli(["plan", ...RANGE], { cwd: dir.path, env: noKey });
    expect(result.code, `${result.stdout}${result.stderr}`).toBe(0);
    withoutUpstream = result.stdout;
    expect(sandbox.stats().requests).toBe(served);
    const each = /each artist not tracked yet adds (\d+) requests$/m.exec(withoutUpstream)?.[1];
    expect(Number(each)).toBeGreaterThan(0);
    const lines = withoutUpstream.trimEnd().split("\n");
    // The last two lines: the time the total takes, then what it leaves out.
    expect(lines.at(-2)).toMatch(
      new RegExp(`^${total(withoutUpstream).requests} requests at 1000 req/s`),
    );
    expect(lines.at(-1)).toBe(
      "the total leaves out the artists the catalogue will find: artists has not synced yet, " +
        "and the plan could not ask what its 2 artist_names searches find " +
        "(environment: MUSIC_API_KEY: is required (set it in the environment or .env)). " +
        `Add up to ${Number(each) + 1} requests for each artist found: a look-up, and ${each} of the per-artist streams if the statistics API knows it. ` +
        "Run `etl sync --only catalogue` first for a plan that counts them.",
    );
    expect(total(withoutUpstream).basis).toBe(
      "at least: the catalogue's artists left out (last line)",
    );
  });

  it("counts them alike, asked of the upstream or read from the warehouse once synced", async () => {
    const served = sandbox.stats().requests;
    asked = await etl(["plan", ...RANGE]);
    const sent = sandbox.stats().requests - served;
    expect(sent).toBe(Number(tableRows(asked).get("artists")?.requests));
    expect(asked).not.toContain(LEFT_OUT);
    expect(total(asked).requests).toBeGreaterThan(total(withoutUpstream).requests);

    await etl(["sync", "--only", "catalogue"]);
    const before = sandbox.stats().requests;
    const after = await etl(["plan", ...RANGE]);
    expect(sandbox.stats().requests).toBe(before);
    expect(after).not.toContain(LEFT_OUT);
    expect(after).not.toContain("asked of the upstream");
    expect(total(after).basis).toBe("");
    expect(perArtistRows(after)).toEqual(perArtistRows(asked));
    const artistsLine = /^per-artist streams planned for .*$/m;
    expect(after.match(artistsLine)?.[0]).toBe(asked.match(artistsLine)?.[0]);
    expect(after).toMatch(
      /^per-artist streams planned for \d+ tracked artists \(1 configured, [1-9]\d* linked in the catalogue/m,
    );
  });

  it("plans the per-artist streams at what their sync sends", async () => {
    // What the per-artist streams will send, now that the catalogue says who they fetch: every
    // stream counted exactly, or unpaged, sends what it was planned at; a paged one with no run
    // yet was planned at its least, one request a partition, and its short pages may be probed.
    const plan = await etl(["plan", "--only", "artist_stats", ...RANGE]);
    const before = sandbox.stats().requests;
    const sync = await etl(["sync", "--only", "artist_stats", ...RANGE]);
    const made = sandbox.stats().requests - before;
    expect(made).toBeGreaterThanOrEqual(total(plan).requests);
    const planned = tableRows(plan);
    const sent = tableRows(sync);
    expect(Number(sent.get("total")?.requests)).toBe(made);
    for (const stream of selectStreams(["artist_stats"])) {
      const { requests, basis } = planned.get(stream.name) ?? {};
      const exact = basis === "exact" || stream.paging === NO_PAGING;
      const sentRequests = Number(sent.get(stream.name)?.requests);
      if (exact) expect(sentRequests, stream.name).toBe(Number(requests));
      else expect(sentRequests, stream.name).toBeGreaterThanOrEqual(Number(requests));
    }
  });
});
