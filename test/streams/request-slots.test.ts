import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { partitionsInFlight } from "../../src/config/partitions-in-flight.js";
import { pgConnectionConfig } from "../../src/warehouse/pg-connection-config.js";
import { type SyncHarness, startSyncHarness, failures } from "../helpers/sync-harness.js";

const MAX_CONCURRENCY = 2;
/** Partitions a sync runs at once for MAX_CONCURRENCY request slots. */
const IN_FLIGHT = partitionsInFlight(MAX_CONCURRENCY);
/** How long the test waits for the requests while the writes are blocked. */
const WAIT_MS = 20_000;
let harness: SyncHarness;

beforeAll(async () => {
  harness = await startSyncHarness("request_slots", {
    today: "2026-01-31",
    etl: {
      max_concurrency: MAX_CONCURRENCY,
      // A slot left taken frees itself once its lease expires (request_timeout_ms + 5 s): far
      // beyond WAIT_MS, so an expiry cannot stand in for a release.
      request_timeout_ms: 3 * WAIT_MS,
    },
  });
});

afterAll(() => harness.close());

describe("a partition writing to the warehouse", () => {
  it("holds no request slot: while every write waits, the pool's other partitions send theirs", async () => {
    // trend_totals partitions send one request each, then write to sales.trend_totals, which this
    // transaction keeps locked: every partition that has sent its request stops in its write.
    const locker = new pg.Client(pgConnectionConfig(harness.warehouse.url));
    await locker.connect();
    let syncing: ReturnType<SyncHarness["sync"]>;
    let whileLocked: { requests: number; closed: unknown[] };
    try {
      await locker.query("begin");
      await locker.query("lock table sales.trend_totals in access exclusive mode");
      syncing = harness.sync({ only: ["trend_totals"], from: "2026-01-05", to: "2026-01-06" });
      // Settled, the count is what the blocked writes let through: the pool's partitions each sent
      // their request if a write frees its slot, only MAX_CONCURRENCY of them if it keeps it.
      const deadline = Date.now() + WAIT_MS;
      while (harness.upstream.sandbox.stats().requests < IN_FLIGHT && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      whileLocked = {
        requests: harness.upstream.sandbox.stats().requests,
        closed: await harness.warehouse.query(
          "select partition from etl.attempts where status <> 'running'",
        ),
      };
    } finally {
      await locker.query("rollback").catch(() => undefined);
      await locker.end();
    }
    // Finished before anything is asserted, so that a failure leaves no sync running.
    const summaries = await syncing;
    expect(whileLocked.closed).toEqual([]);
    expect(whileLocked.requests).toBeGreaterThan(MAX_CONCURRENCY);
    expect(whileLocked.requests).toBe(IN_FLIGHT);

    expect(failures(summaries)).toEqual([]);
    expect(harness.upstream.sandbox.stats().requests).toBe(2 * 5);
    const [row] = await harness.warehouse.query<{ n: number }>(
      "select count(*)::int as n from sales.trend_totals",
    );
    expect(row?.n).toBe(2 * 5);
  });
});
