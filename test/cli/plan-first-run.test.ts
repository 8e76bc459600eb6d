import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sandboxTracking } from "../../sandbox/demo/sandbox-tracking.js";
import { type Sandbox, startSandbox } from "../../sandbox/index.js";
import { addDays, utcToday } from "../../src/time/calendar.js";
import { etlEnv, runCli } from "../helpers/cli.js";
import { tableRows, totalRow } from "../helpers/printed-table.js";
import { deleteKeysWithPrefix, uniquePrefix } from "../helpers/redis.js";
import { makeTempDir } from "../helpers/temp-dir.js";
import { createTestWarehouse, type TestWarehouse } from "../helpers/warehouse.js";

// `etl` plans and syncs from the real day: so does the sandbox, so that the series windows and
// the charts a run asks for are ones it serves.
const TODAY = utcToday();
const DAY = addDays(TODAY, -2);
const RANGE = ["--from", DAY, "--to", DAY];
const prefix = uniquePrefix("plan_first_run");
const dir = makeTempDir("plan-first-run");
let sandbox: Sandbox;
let warehouse: TestWarehouse;
let env: Record<string, string>;
let social: number[];

beforeAll(async () => {
  sandbox = await startSandbox({ apiKey: "plan-first-run-key-0123456789", today: TODAY });
  warehouse = await createTestWarehouse("plan_first_run");
  // The default account, tracked as the demo tracks it: two artist_names searches whose artists
  // the per-artist streams track besides the one configured.
  const tracking = sandboxTracking(sandbox.data);
  social = tracking.social_artist_ids;
  const config = dir.write("etl.config.json", {
    ...tracking,
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

/** What the sandbox answered between two of its stats, per operation. */
function operationsBetween(
  before: Record<string, number>,
  after: Record<string, number>,
): Record<string, number> {
  return Object.fromEntries(
    Object.entries(after).flatMap(([operation, n]) => {
      const sent = n - (before[operation] ?? 0);
      return sent > 0 ? [[operation, sent]] : [];
    }),
  );
}

describe("etl plan of a first run", () => {
  let plan: string;
  let asked: number;

  it("asks the catalogue which artists it finds, and sends nothing else", async () => {
    const before = sandbox.stats();
    plan = await etl(["plan", ...RANGE]);
    const after = sandbox.stats();
    asked = after.requests - before.requests;
    // The searches and the statistics ids of the artists they find, as the run's artists stream
    // makes them: counted in its row.
    expect(Object.keys(operationsBetween(before.byOperation, after.byOperation)).sort()).toEqual([
      "artistStats.artistIdFromIdentifiers",
      "catalogue.getArtistByName",
    ]);
    const artists = tableRows(plan).get("artists");
    expect(Number(artists?.requests)).toBe(asked);
    expect(artists?.basis).toBe(
      "asked: the plan sent them to find the catalogue's artists, the run sends them again",
    );
    expect(totalRow(plan).basis).toBe("");
    expect(plan).not.toContain("leaves out");
    expect(plan).not.toContain("more to come");
    expect(plan).toMatch(
      new RegExp(
        `^the catalogue's artists asked of the upstream first: its 2 artist_names searches found [1-9]\\d* artists, [1-9]\\d* known to the statistics API \\(${asked} requests, in the artists row: the run sends them again\\)$`,
        "m",
      ),
    );
  });

  it("is within 20 % of the requests the run then sends", async () => {
    const before = sandbox.stats().requests;
    const sync = await etl(["sync", ...RANGE]);
    const made = sandbox.stats().requests - before;
    expect(totalRow(sync).requests).toBe(made);
    const planned = totalRow(plan).requests;
    expect(Math.abs(planned - made) / made, `planned ${planned}, made ${made}`).toBeLessThanOrEqual(
      0.2,
    );
    // The artists searched for are the ones the run found: the same requests, the same links.
    expect(Number(tableRows(sync).get("artists")?.requests)).toBe(asked);
    const [links] = await warehouse.query<{ linked: number }>(
      `select count(distinct social_artist_id)::int as linked from catalogue.artists
       where social_artist_id is not null and social_artist_id <> all($1::bigint[])`,
      [social],
    );
    expect(links?.linked).toBeGreaterThan(0);
    expect(plan).toContain(`${links?.linked} linked in the catalogue`);
  });
});
