import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sandboxTracking } from "../../src/demo/sandbox-tracking.js";
import { startSandbox } from "../../src/sandbox/index.js";
import { type SyncHarness, startSyncHarness } from "../helpers/sync-harness.js";

const TODAY = "2026-01-31";
const RANGE = { from: "2026-01-01", to: "2026-01-04" };
let harness: SyncHarness;

/** Per table: its row count and the row versions (xmin) of all its rows, in physical order. */
async function versions(): Promise<Record<string, string>> {
  const tables = await harness.warehouse.query<{ name: string }>(
    `select schemaname || '.' || relname as name from pg_stat_user_tables
      where schemaname in ('catalogue', 'sales', 'artist_stats', 'royalties') order by 1`,
  );
  const result: Record<string, string> = {};
  for (const { name } of tables) {
    const [row] = await harness.warehouse.query<{ v: string | null }>(
      `select count(*) || ':' || coalesce(string_agg(xmin::text, ',' order by ctid), '') as v from ${name}`,
    );
    result[name] = row?.v ?? "";
  }
  return result;
}

beforeAll(async () => {
  // The tracking config names the sandbox's own artists: read them from a sandbox of the same seed.
  const probe = await startSandbox({ today: TODAY });
  const tracking = sandboxTracking(probe.data);
  await probe.close();
  harness = await startSyncHarness("full_sync", { today: TODAY, etl: tracking });
});

afterAll(() => harness.close());

describe("a full sync of every stream", () => {
  let first: Awaited<ReturnType<SyncHarness["sync"]>>;

  beforeAll(async () => {
    first = await harness.sync(RANGE);
  });

  it("fills every table without a failed partition", async () => {
    expect(first.flatMap((s) => s.failed.map((f) => `${f.stream} ${f.partition}`))).toEqual([]);
    // payout_requests records the `payouts request` command, not anything a sync reads.
    const empty = Object.entries(await versions()).filter(
      ([table, v]) => v.startsWith("0:") && table !== "royalties.payout_requests",
    );
    expect(empty.map(([table]) => table)).toEqual([]);
  });

  it("writes zero rows when synced again with no upstream change (row versions unchanged)", async () => {
    const before = await versions();
    const second = await harness.sync(RANGE);
    expect(second.flatMap((s) => s.failed)).toEqual([]);
    expect(second.reduce((n, s) => n + s.rowsWritten, 0)).toBe(0);
    expect(await versions()).toEqual(before);
  });

  it("stores a drifting upstream's records (raw kept) without failing a partition", async () => {
    harness.upstream.sandbox.setKnobs({
      drift: { extraFields: true, numbersAsStrings: true, nulls: true, renamedEnum: true },
    });
    try {
      const drifted = await harness.sync(RANGE);
      expect(
        drifted.flatMap((s) =>
          s.failed.map((f) => `${f.stream} ${f.partition}: ${String(f.error)}`),
        ),
      ).toEqual([]);
      const [row] = await harness.warehouse.query<{ n: number }>(
        "select count(*)::int as n from sales.trend_items where raw ? 'x_unexpected'",
      );
      expect(row?.n).toBeGreaterThan(0);
    } finally {
      harness.upstream.sandbox.setKnobs({
        drift: { extraFields: false, numbersAsStrings: false, nulls: false, renamedEnum: false },
      });
    }
  });
});
