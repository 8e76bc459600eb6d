import { partitionsInFlight } from "../../src/config/partitions-in-flight.js";
import { describe, expect, it } from "vitest";
import { processSetting } from "../helpers/process-setting.js";
import { until } from "../helpers/until.js";
import { spawnEtl } from "../helpers/worker-process.js";

const CONCURRENCY = 2;
/** Partitions a sync runs at once for CONCURRENCY request slots. */
const IN_FLIGHT = partitionsInFlight(CONCURRENCY);
const setting = processSetting("sync-stop", { apiKey: "sync-stop-key-1", today: "2026-01-31" });

async function attempts(): Promise<{ status: string; n: number }[]> {
  try {
    return await setting.warehouse.query<{ status: string; n: number }>(
      "select status, count(*)::int as n from etl.attempts group by status order by status",
    );
  } catch {
    return []; // not migrated yet
  }
}

describe("etl sync stopped by SIGTERM", () => {
  it("records the partitions it cut short as interrupted, starts no other, and exits 130", async () => {
    // Every request takes 10 s: the partitions running when the signal comes cannot have ended.
    setting.sandbox.setKnobs({ latencyMs: 10_000 });
    const env = setting.configure({
      start_date: "2026-01-01",
      requests_per_second: 1000,
      max_concurrency: CONCURRENCY,
    });
    const sync = spawnEtl(
      ["sync", "--from", "2026-01-05", "--to", "2026-01-05", "--only", "trend_items"],
      { cwd: setting.dir.path, env },
    );
    await until(
      async () => (await attempts()).find((a) => a.status === "running")?.n === IN_FLIGHT,
      60_000,
    ).catch((error: unknown) => {
      throw new Error(`no partition started:\n${sync.logs.join("\n")}`, { cause: error });
    });
    sync.child.kill("SIGTERM");
    expect(await sync.exited, sync.logs.join("\n")).toBe(130);
    // Each running partition was closed before the command let go of the database: none is
    // left running, none failed, and none of the other six of the day was started.
    expect(await attempts()).toEqual([{ status: "interrupted", n: IN_FLIGHT }]);
    const states = await setting.warehouse.query("select 1 from etl.stream_state");
    expect(states).toEqual([]);
    expect(sync.stdout()).toContain(`${IN_FLIGHT} partitions were interrupted`);
  });
});
