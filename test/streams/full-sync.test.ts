import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sandboxTracking } from "../../sandbox/demo/sandbox-tracking.js";
import { DEFAULT_KNOBS, startSandbox } from "../../sandbox/index.js";
import { STREAMS } from "../../src/streams/registry.js";
import { streamSpans } from "../helpers/stream-spans.js";
import { type SyncHarness, startSyncHarness, failures } from "../helpers/sync-harness.js";

const TODAY = "2026-01-31";
const RANGE = { from: "2026-01-01", to: "2026-01-02" };
/** Small, yet every table gets rows and the per-artist streams run for two artists side by side. */
const SIZE = { socialArtists: 2, playlistsPerArtist: 20, chartRows: 40, incomes: 60 };
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
  const probe = await startSandbox({ today: TODAY, size: SIZE });
  const tracking = sandboxTracking(probe.data);
  await probe.close();
  harness = await startSyncHarness("full_sync", {
    today: TODAY,
    sandbox: { size: SIZE },
    etl: tracking,
  });
});

afterAll(() => harness.close());

describe("a full sync of every stream", () => {
  let first: Awaited<ReturnType<SyncHarness["sync"]>>;

  beforeAll(async () => {
    first = await harness.sync(RANGE);
  });

  it("fills every table without a failed partition", async () => {
    expect(failures(first)).toEqual([]);
    // payout_requests records the `payouts request` command, not anything a sync reads; the
    // roll-ups' stale days are rolled up by the sync's end.
    const unfilled = ["royalties.payout_requests", "sales.trend_item_stale_days"];
    const empty = Object.entries(await versions()).filter(
      ([table, v]) => v.startsWith("0:") && !unfilled.includes(table),
    );
    expect(empty.map(([table]) => table)).toEqual([]);
  });

  it("runs independent streams together, and a stream only after those it is planned from", async () => {
    const overlapping = await harness.warehouse.query<{ stream: string }>(
      `select distinct a.stream from etl.attempts a join etl.attempts b
          on a.stream <> b.stream and a.started_at < b.finished_at and b.started_at < a.finished_at`,
    );
    expect(overlapping.length).toBeGreaterThanOrEqual(2);
    const span = await streamSpans(harness.warehouse);
    expect(span("artist_stats_artists").first).toBeGreaterThan(span("artists").last);
    const perArtist = STREAMS.filter((s) => s.after?.includes("artist_stats_artists"));
    for (const stream of perArtist) {
      expect(span(stream.name).first, stream.name).toBeGreaterThan(
        span("artist_stats_artists").last,
      );
    }
  });

  it("reports no untyped value when the upstream sends what the spec shows", async () => {
    expect(first.flatMap((s) => s.untyped.map((u) => `${s.stream} ${u.field}`))).toEqual([]);
    const [row] = await harness.warehouse.query<{ n: number }>(
      "select count(*)::int as n from etl.attempts where untyped_values is not null",
    );
    expect(row?.n).toBe(0);
  });

  it("writes zero rows when synced again with no upstream change (row versions unchanged)", async () => {
    const before = await versions();
    const second = await harness.sync(RANGE);
    expect(failures(second)).toEqual([]);
    expect(second.reduce((n, s) => n + s.rowsWritten, 0)).toBe(0);
    expect(await versions()).toEqual(before);
  });

  it("stores a drifting upstream's records (raw kept) and reports exactly what it could not type", async () => {
    harness.upstream.sandbox.setKnobs({
      drift: {
        extraFields: true,
        numbersAsStrings: true,
        nulls: true,
        renamedEnum: true,
        malformed: true,
      },
    });
    try {
      const drifted = await harness.sync(RANGE);
      expect(failures(drifted)).toEqual([]);
      const [row] = await harness.warehouse.query<{ n: number }>(
        "select count(*)::int as n from sales.trend_items where raw ? 'x_unexpected'",
      );
      expect(row?.n).toBeGreaterThan(0);

      const reported = (stream: string, field: string) =>
        drifted
          .find((s) => s.stream === stream)
          ?.untyped.filter((u) => u.field === field)
          .reduce((sum, u) => sum + u.count, 0) ?? 0;
      // A field the spec does not show widens its discovered column to hold what came (a count
      // sent as "n/a" makes it text): nothing untyped, every value as sent.
      const [items] = await harness.warehouse.query<{ garbled: number; differ: number }>(
        `select count(*) filter (where raw->>'count' !~ '^[0-9]+$')::int as garbled,
                count(*) filter (where count is distinct from raw->>'count')::int as differ
           from sales.trend_items`,
      );
      expect(items?.garbled).toBeGreaterThan(0);
      expect(items?.differ).toBe(0);
      expect(reported("trend_items", "count")).toBe(0);
      // A field the spec shows keeps its declared type: a garbled amount is null, and reported.
      const [payouts] = await harness.warehouse.query<{ n: number }>(
        `select count(*)::int as n from royalties.payouts
          where amount is null and raw->>'amount' is not null`,
      );
      expect(payouts?.n).toBeGreaterThan(0);
      expect(reported("payouts", "amount")).toBe(payouts?.n);
      // Only malformed values are reported: numbers sent as text and nulls are typed or absent.
      const examples = drifted.flatMap((s) => s.untyped.flatMap((u) => u.examples));
      expect(examples.length).toBeGreaterThan(0);
      for (const example of examples)
        expect(example).toMatch(/^"(n\/a|-?\d+,\d+|\d\d\/\d\d\/\d{4})"$/);
      const recorded = await harness.warehouse.query<{
        untyped: { field: string; count: number }[];
      }>(
        `select untyped_values as untyped from etl.attempts
          where untyped_values is not null and stream = 'payouts'`,
      );
      expect(
        recorded
          .flatMap((r) => r.untyped)
          .filter((u) => u.field === "amount")
          .reduce((n, u) => n + u.count, 0),
      ).toBe(payouts?.n);
    } finally {
      harness.upstream.sandbox.setKnobs({ drift: DEFAULT_KNOBS.drift });
    }
  });
});
