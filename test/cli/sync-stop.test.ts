import { partitionsInFlight } from "../../src/config/partitions-in-flight.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { etlEnv } from "../helpers/cli.js";
import { type Sandbox, startSandbox } from "../../sandbox/index.js";
import { deleteKeysWithPrefix, uniquePrefix } from "../helpers/redis.js";
import { makeTempDir } from "../helpers/temp-dir.js";
import { createTestWarehouse, type TestWarehouse } from "../helpers/warehouse.js";
import { spawnEtl } from "../helpers/worker-process.js";

const prefix = uniquePrefix("sync-stop");
const dir = makeTempDir("sync-stop");
const CONCURRENCY = 2;
/** Partitions a sync runs at once for CONCURRENCY request slots. */
const IN_FLIGHT = partitionsInFlight(CONCURRENCY);
let sandbox: Sandbox;
let warehouse: TestWarehouse;

beforeAll(async () => {
  sandbox = await startSandbox({ apiKey: "sync-stop-key-1", today: "2026-01-31" });
  warehouse = await createTestWarehouse("sync_stop");
  dir.write("etl.config.json", {
    start_date: "2026-01-01",
    redis_prefix: prefix,
    requests_per_second: 1000,
    max_concurrency: CONCURRENCY,
  });
});

afterAll(async () => {
  await sandbox.close();
  await warehouse.drop();
  await deleteKeysWithPrefix(prefix);
  dir.remove();
});

async function attempts(): Promise<{ status: string; n: number }[]> {
  try {
    return await warehouse.query<{ status: string; n: number }>(
      "select status, count(*)::int as n from etl.sync_runs group by status order by status",
    );
  } catch {
    return []; // not migrated yet
  }
}

describe("etl sync stopped by SIGTERM", () => {
  it("records the partitions it cut short as interrupted, starts no other, and exits 130", async () => {
    // Every request takes 10 s: the partitions running when the signal comes cannot have ended.
    sandbox.setKnobs({ latencyMs: 10_000 });
    const sync = spawnEtl(
      ["sync", "--from", "2026-01-05", "--to", "2026-01-05", "--only", "trend_items"],
      {
        cwd: dir.path,
        env: etlEnv(sandbox, warehouse.url, null),
      },
    );
    const deadline = Date.now() + 60_000;
    while ((await attempts()).find((a) => a.status === "running")?.n !== IN_FLIGHT) {
      if (Date.now() > deadline) throw new Error(`no partition started:\n${sync.logs.join("\n")}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    sync.child.kill("SIGTERM");
    expect(await sync.exited, sync.logs.join("\n")).toBe(130);
    // Each running partition was closed before the command let go of the database: none is
    // left running, none failed, and none of the other six of the day was started.
    expect(await attempts()).toEqual([{ status: "interrupted", n: IN_FLIGHT }]);
    const states = await warehouse.query("select 1 from etl.stream_state");
    expect(states).toEqual([]);
    expect(sync.stdout()).toContain(`${IN_FLIGHT} partitions were interrupted`);
  }, 90_000);
});
