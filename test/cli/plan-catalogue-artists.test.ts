import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sandboxTracking } from "../../sandbox/demo/sandbox-tracking.js";
import { type Sandbox, startSandbox } from "../../sandbox/index.js";
import { NO_PAGING } from "../../src/streams/paging.js";
import { selectStreams } from "../../src/streams/registry.js";
import { addDays, utcToday } from "../../src/time/calendar.js";
import { etlEnv, runCli } from "../helpers/cli.js";
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

/** The cells of a printed table (`stream  partitions  …`), by column, of each row by its first. */
function tableRows(output: string): Map<string, Record<string, string>> {
  const lines = output.split("\n");
  const start = lines.findIndex((line) => line.startsWith("stream "));
  const header = lines[start]?.split(/ {2,}/) ?? [];
  const rows = new Map<string, Record<string, string>>();
  for (const line of lines.slice(start + 1)) {
    const cells = line.split(/ {2,}/);
    if (!/^\w+$/.test(cells[0] ?? "") || !/^\d+$/.test(cells[1] ?? "")) break;
    rows.set(cells[0] ?? "", Object.fromEntries(header.map((name, i) => [name, cells[i] ?? ""])));
  }
  return rows;
}

/** The requests column of a plan's total row, and the row's basis. */
function total(plan: string): { requests: number; basis: string } {
  const row = tableRows(plan).get("total");
  return { requests: Number(row?.requests), basis: row?.basis ?? "" };
}

const LEFT_OUT = "the total leaves out the artists the catalogue will find";

describe("etl plan and the artists the catalogue will find", () => {
  it("says the total leaves them out before the catalogue syncs, and counts them after", async () => {
    const served = sandbox.stats().requests;
    const first = await etl(["plan", ...RANGE]);
    expect(sandbox.stats().requests).toBe(served);
    const each = /each artist not tracked yet adds (\d+) requests$/m.exec(first)?.[1];
    expect(Number(each)).toBeGreaterThan(0);
    const lines = first.trimEnd().split("\n");
    // The last two lines: the time the total takes, then what it leaves out.
    expect(lines.at(-2)).toMatch(new RegExp(`^${total(first).requests} requests at 1000 req/s`));
    expect(lines.at(-1)).toBe(
      "the total leaves out the artists the catalogue will find: artists has not synced yet, " +
        "and its 2 artist_names searches may find any number. " +
        `Each adds a look-up, and ${each} requests of the per-artist streams if the statistics API knows it. ` +
        "Run `etl sync --only catalogue` first for a plan that counts them.",
    );
    expect(total(first).basis).toBe("at least: the catalogue's artists left out (last line)");

    await etl(["sync", "--only", "catalogue"]);
    const after = await etl(["plan", ...RANGE]);
    expect(after).not.toContain(LEFT_OUT);
    expect(total(after).basis).toBe("");
    expect(total(after).requests).toBeGreaterThan(total(first).requests);
    expect(after).toMatch(
      /^per-artist streams planned for \d+ tracked artists \(1 configured, [1-9]\d* linked in the catalogue/m,
    );

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
  }, 240_000);
});
