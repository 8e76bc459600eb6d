import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HOSTILE_DEPTH, HUGE_INTEGER } from "../../sandbox/drift.js";
import type { StreamSummary } from "../../src/runner/run-sync.js";
import { dataColumns, differences, fingerprints } from "../faults/table-fingerprints.js";
import {
  demoTracking,
  type SyncHarness,
  startSyncHarness,
  failures,
} from "../helpers/sync-harness.js";

// Values no column of their kind can hold (a NUL or half a surrogate pair in a text, a 30-digit
// integer, a rank beyond 32 bits, an id that cannot be a key, 10,000-deep nesting) fail no
// partition: each becomes null in its typed column and is reported, a record whose key cannot
// be stored is quarantined, and every other record lands. Once the upstream sends clean values,
// a re-sync leaves the data tables exactly as a clean sync leaves another warehouse's.

const TODAY = "2026-01-06";
const DAY = { from: "2026-01-05", to: "2026-01-05" };
/** Smaller than the default, yet every stream still meets each kind of hostile value. */
const SIZE = {
  days: 10,
  products: 30,
  artists: 12,
  dsps: 8,
  labels: 4,
  socialArtists: 2,
  playlistsPerArtist: 20,
  chartRows: 40,
  incomes: 40,
  trendItemsCap: 100,
};

const rowCounts = async (harness: SyncHarness) =>
  new Map([...(await fingerprints(harness.warehouse))].map(([table, p]) => [table, p.rows]));

describe("hostile values from the upstream", () => {
  let hostile: SyncHarness;
  let clean: SyncHarness;
  let first: StreamSummary[];

  beforeAll(async () => {
    const etl = await demoTracking(TODAY, SIZE);
    [hostile, clean] = await Promise.all([
      startSyncHarness("hostile_values", {
        today: TODAY,
        etl,
        sandbox: { size: SIZE, knobs: { drift: { hostile: true } } },
      }),
      startSyncHarness("hostile_clean", { today: TODAY, etl, sandbox: { size: SIZE } }),
    ]);
    first = await hostile.sync(DAY);
  });
  afterAll(async () => {
    await hostile?.close();
    await clean?.close();
  });

  it("fail no partition, and are each reported as untyped", () => {
    expect(failures(first)).toEqual([]);
    const untyped = new Set(
      first.flatMap((s) => s.untyped.map((u) => `${s.stream} ${u.field} ${u.expected}`)),
    );
    // A declared column cannot hold a NUL (dsps' name); raw keeps every text with U+FFFD in its
    // place (a list item's name), and a discovered column holds what raw holds.
    for (const expected of [
      "dsps name text",
      "trend_items name json",
      "trend_items x_nested json",
    ]) {
      expect([...untyped]).toContain(expected);
    }
    const warned = first.filter((s) =>
      s.warned.some((outcome) => outcome.warnings.some((w) => w.kind === "untyped")),
    );
    expect(warned.map((s) => s.stream)).toEqual(expect.arrayContaining(["trend_items"]));
    // A field the spec does not show is a discovered column: a count or a rank beyond 64 or 32
    // bits widens it (only text Postgres cannot hold at all, a NUL, is reported, in raw).
    expect(
      [...untyped].filter(
        (field) =>
          (field.startsWith("artist_stats") || field.startsWith("trend_items")) &&
          !field.endsWith(" json"),
      ),
    ).toEqual([]);
  });

  it("keep null in the declared column and what was sent in raw; a discovered one holds it", async () => {
    const [items] = await hostile.warehouse.query<{
      huge: number;
      replaced: number;
      differ: number;
      nested: number;
    }>(
      `select
         count(*) filter (where raw->>'count' = $1 and count::text = $1)::int as huge,
         count(*) filter (where raw->>'name' like '%' || chr(65533) and name = raw->>'name')::int
           as replaced,
         count(*) filter (where name is distinct from raw->>'name')::int as differ,
         count(*) filter (where raw->'x_nested' is not null)::int as nested
       from sales.trend_items`,
      [HUGE_INTEGER],
    );
    // The 30 digits themselves, not the double nearest to them: the discovered column widened.
    expect(items?.huge).toBeGreaterThan(0);
    // Both NUL and half a surrogate pair are kept as U+FFFD in raw, and so in its column.
    expect(items?.replaced).toBeGreaterThan(0);
    expect(items?.differ).toBe(0);
    expect(items?.nested).toBeGreaterThan(0);
    const [dsps] = await hostile.warehouse.query<{ nul: number; lone: number }>(
      `select
         count(*) filter (where raw->>'name' like '%' || chr(65533) and name is null)::int as nul,
         count(*) filter (where raw->>'name' not like '%' || chr(65533) and name is null
                          and raw->>'name' is not null)::int as lone
       from catalogue.dsps`,
    );
    // A declared column holds neither: null, the text in raw.
    expect(dsps?.nul).toBeGreaterThan(0);
    expect(dsps?.lone).toBe(0);
    const [deep] = await hostile.warehouse.query<{ depth: number; text: string }>(
      `with recursive down(part, depth) as (
         select raw->'x_nested', 1 from sales.trend_items where raw ? 'x_nested'
         union all select part->0, depth + 1 from down where jsonb_typeof(part) = 'array')
       select max(depth)::int as depth, (array_agg(part #>> '{}') filter (where jsonb_typeof(part) = 'string'))[1] as text
         from down`,
    );
    // Structure down to the depth the warehouse keeps, the rest as the text it was sent as.
    const brackets = deep?.text.match(/^\[*/)?.[0].length ?? 0;
    expect((deep?.depth ?? 0) - 1 + brackets).toBe(HOSTILE_DEPTH);
    const [ranks] = await hostile.warehouse.query<{ n: number }>(
      `select count(*)::int as n from artist_stats.chart_entries
        where raw->>'peak_rank' = '3000000000' and peak_rank::text = '3000000000'`,
    );
    expect(ranks?.n).toBeGreaterThan(0);
  });

  it("quarantine the records whose key cannot be stored, and land the rest", async () => {
    const rejected = await hostile.warehouse.query<{ table: string; n: number }>(
      `select target_table as table, count(*)::int as n from etl.rejected_records
        group by 1`,
    );
    expect(rejected.length).toBeGreaterThan(0);
    const before = await rowCounts(hostile);
    await clean.sync(DAY);
    const expected = await rowCounts(clean);
    // Short of the clean rows by at most the records quarantined: a record quarantined in one
    // place may land from another (an artist of two products), and a row may come of another
    // table's record (a payout's status history).
    const quarantined = rejected.reduce((n, r) => n + r.n, 0);
    const short = [...expected].filter(([table, rows]) => {
      const landed = before.get(table) ?? 0;
      return landed < rows - quarantined || landed > rows;
    });
    expect(short.map(([table, rows]) => [table, rows, before.get(table)])).toEqual([]);
    // Chart entries are keyed by rank: a rank beyond 32 bits cannot be one.
    expect(rejected.map((r) => r.table)).toEqual(
      expect.arrayContaining(["artist_stats.chart_entries", "sales.trend_items"]),
    );
  });

  it("leave the warehouse as a clean sync does once the upstream sends clean values", async () => {
    hostile.upstream.sandbox.setKnobs({ drift: { hostile: false } });
    const again = await hostile.sync(DAY);
    expect(failures(again)).toEqual([]);
    expect(again.flatMap((s) => s.untyped)).toEqual([]);
    const cleanColumns = await dataColumns(clean.warehouse);
    expect(
      differences(
        await fingerprints(clean.warehouse, cleanColumns),
        await fingerprints(hostile.warehouse, cleanColumns),
      ),
    ).toEqual([]);
    // The columns the hostile values made stay, a function of each row's raw: null where the
    // clean record has no such field (the hostile ones are gone).
    const extra: string[] = [];
    for (const [table, columns] of await dataColumns(hostile.warehouse)) {
      for (const column of columns.filter((c) => !cleanColumns.get(table)?.includes(c))) {
        extra.push(`${table}.${column}`);
        const held = await hostile.warehouse.query(
          `select 1 from ${table} t
            where ${JSON.stringify(column)} is not null
              and t.raw #> (select field from etl.discovered_columns
                             where table_name = $1 and column_name = $2) is null
            limit 1`,
          [table, column],
        );
        expect([table, column, held]).toEqual([table, column, []]);
      }
    }
    expect(extra.length).toBeGreaterThan(0);
  });
});
