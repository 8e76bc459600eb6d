// A replay of every stream right after a sync must leave every table exactly as the sync wrote
// it, row for row and with synced_at untouched: whatever it cannot derive again from the stored
// responses (rows built from configuration or from other tables) it must not remove.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSandbox } from "../../sandbox/index.js";
import type { StreamSummary } from "../../src/runner/run-sync.js";
import { urls } from "../../src/streams/artist-stats/urls.js";
import {
  demoTracking,
  type SyncHarness,
  startSyncHarness,
  failures,
  SMALL_ACCOUNT,
} from "../helpers/sync-harness.js";

const TODAY = "2026-01-31";
const RANGE = { from: "2026-01-01", to: "2026-01-03" };
const SCHEMAS = ["catalogue", "sales", "artist_stats", "royalties"];
/** Differing rows shown per table: enough to see what went wrong, short enough to read. */
const SHOWN = 5;

/** Every row of every data table, and of the quarantine, as JSON text, sorted. */
async function snapshot(harness: SyncHarness): Promise<Map<string, string[]>> {
  const tables = await harness.warehouse.query<{ name: string }>(
    `select table_schema || '.' || table_name as name from information_schema.tables
      where (table_schema = any($1) and table_type = 'BASE TABLE')
         or (table_schema = 'etl' and table_name = 'rejected_records')
      order by 1`,
    [SCHEMAS],
  );
  const result = new Map<string, string[]>();
  for (const { name } of tables) {
    // jsonb's text is canonical and names each column: one sort key that covers every column.
    const rows = await harness.warehouse.query<{ row: string }>(
      `select to_jsonb(t)::text as row from ${name} t order by 1`,
    );
    result.set(
      name,
      rows.map((r) => r.row),
    );
  }
  return result;
}

/** Per table, the rows only before (-) and only after (+): empty when both hold the same rows. */
function rowDiff(before: Map<string, string[]>, after: Map<string, string[]>): string[] {
  const tables = [...new Set([...before.keys(), ...after.keys()])].sort();
  return tables.flatMap((table) => {
    const was = before.get(table) ?? [];
    const is = after.get(table) ?? [];
    const removed = multisetMinus(was, is);
    const added = multisetMinus(is, was);
    if (removed.length === 0 && added.length === 0) return [];
    return [
      `${table}: ${was.length} rows before, ${is.length} after`,
      ...removed.slice(0, SHOWN).map((row) => `  - ${row}`),
      ...added.slice(0, SHOWN).map((row) => `  + ${row}`),
    ];
  });
}

function multisetMinus(from: readonly string[], take: readonly string[]): string[] {
  const left = new Map<string, number>();
  for (const row of take) left.set(row, (left.get(row) ?? 0) + 1);
  return from.filter((row) => {
    const n = left.get(row) ?? 0;
    if (n > 0) left.set(row, n - 1);
    return n === 0;
  });
}

/**
 * A social id the catalogue look-ups of `artistNames` find and name: the tracked-artists stream
 * asks the statistics API for no name when it tracks that one alone.
 */
async function catalogueNamedArtist(artistNames: readonly string[]): Promise<number> {
  const probe = await startSandbox({ today: TODAY, size: SMALL_ACCOUNT });
  try {
    const named = probe.data
      .socialArtists()
      .find(
        (s) =>
          s.artist_id !== null &&
          artistNames.some((name) => s.name.toLowerCase().includes(name.toLowerCase())),
      );
    if (!named) throw new Error("the catalogue look-ups find no social artist");
    return named.cm_artist;
  } finally {
    await probe.close();
  }
}

const warned = (summaries: readonly StreamSummary[]) =>
  summaries.flatMap((s) => s.warned.map((w) => `${w.stream} ${w.partition}`));

describe.each([
  // A small account: artists tracked by their social ids alone, each named by its catalogue
  // artist, so the tracked-artists stream sends no request and its rows come from configuration
  // and the catalogue only.
  { label: "social_ids_only", streamingIds: false },
  { label: "streaming_ids", streamingIds: true },
])("a replay of every stream after a sync ($label)", ({ label, streamingIds }) => {
  let harness: SyncHarness;

  beforeAll(async () => {
    const tracking = await demoTracking(TODAY, SMALL_ACCOUNT);
    const socialIdsOnly = {
      ...tracking,
      social_artist_ids: [await catalogueNamedArtist(tracking.artist_names)],
      streaming_artist_ids: [],
    };
    harness = await startSyncHarness(`replay_identity_${label}`, {
      today: TODAY,
      sandbox: { size: SMALL_ACCOUNT },
      etl: streamingIds ? tracking : socialIdsOnly,
    });
    expect(failures(await harness.sync(RANGE))).toEqual([]);
  });

  afterAll(() => harness?.close());

  it("leaves every table as the sync wrote it, row for row, synced_at included", async () => {
    const before = await snapshot(harness);
    expect(before.get("artist_stats.artists")?.length).toBeGreaterThan(0);
    const requests = harness.upstream.sandbox.stats().requests;
    const summaries = await harness.replay();
    expect(failures(summaries)).toEqual([]);
    expect(harness.upstream.sandbox.stats().requests).toBe(requests);
    expect(rowDiff(before, await snapshot(harness))).toEqual([]);
    expect(summaries.filter((s) => s.rowsWritten > 0).map((s) => s.stream)).toEqual([]);
    expect(warned(summaries)).toEqual([]);
    // The tracked artists' one page is recorded even when it needed no request.
    expect(
      await harness.warehouse.query(
        "select pages from etl.attempts where stream = 'artist_stats_artists' and kind = 'sync'",
      ),
    ).toEqual([{ pages: ["null"] }]);
  });

  it("reads a sync recorded before its pages were as its responses show, and deletes nothing where it had none", async () => {
    await harness.warehouse.query("update etl.attempts set pages = null where kind = 'sync'");
    const before = await snapshot(harness);
    const summaries = await harness.replay();
    expect(failures(summaries)).toEqual([]);
    expect(rowDiff(before, await snapshot(harness))).toEqual([]);
    // With no response, whether the sync read a page is unknown: said, as a list that may be whole.
    expect(warned(summaries)).toEqual(streamingIds ? [] : ["artist_stats_artists tracked"]);
  });

  it("refuses a stored response that declares failure, and changes no row", async () => {
    // Landed by a release before the client refused such answers: read as an empty list, it
    // would have replaced the artist's links with none.
    await harness.warehouse.query(
      `update etl.responses set body = '{"status": false, "message": "landed before the fix"}'
        where stream = 'artist_stats_urls'`,
    );
    const before = await snapshot(harness);
    const summaries = await harness.replay([urls]);
    expect(failures(summaries).length).toBeGreaterThan(0);
    expect(
      failures(summaries).filter((f) => !f.includes("declares failure (landed before the fix)")),
    ).toEqual([]);
    expect(rowDiff(before, await snapshot(harness))).toEqual([]);
  });

  it("refuses a sync whose stored responses do not fit the pages it recorded", async () => {
    await harness.warehouse.query(
      `update etl.attempts set pages = '{}'
        where kind = 'sync' and stream = 'artist_stats_urls' and cardinality(response_ids) > 0`,
    );
    const before = await snapshot(harness);
    const summaries = await harness.replay([urls]);
    expect(failures(summaries).length).toBeGreaterThan(0);
    expect(failures(summaries).filter((f) => !f.includes("do not fit the pages"))).toEqual([]);
    expect(rowDiff(before, await snapshot(harness))).toEqual([]);
  });
});
