import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CatalogueArtist, Dsp, Product, Territory } from "../../sandbox/index.js";
import { HOSTILE_NAMES } from "../../sandbox/dataset/names.js";
import { catalogueStreams } from "../../src/streams/catalogue/index.js";
import type { StreamSummary } from "../../src/runner/run-sync.js";
import { type SyncHarness, startSyncHarness, failures } from "../helpers/sync-harness.js";

// Overlapping searches, two of them longer than one page of 100.
const UPCS = ["5", "01", "10"];
const ARTIST_NAMES = ["a", "e", "日本語", "Ελληνικά", "موسيقى", "O'Connor"];
const TERRITORY_KEYS = ["all", "an", "FR"];
const DSP_KEYS = ["all", "DSP0"];
const TABLES = ["products", "assets", "artists", "territories", "dsps"];

let harness: SyncHarness;
let first: StreamSummary[];
let requestsByOperation: Record<string, number>;

const data = () => harness.upstream.sandbox.data;
const sortedBy = <T>(rows: T[], key: (row: T) => string) =>
  rows.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));

/** What the upstream matches for one look-up value, as the sandbox's routes do. */
const productsFor = (upc: string) =>
  data()
    .products()
    .filter((p) => p.upc.includes(upc));
const artistsFor = (name: string) =>
  data()
    .artists()
    .filter((a) => a.name.toLowerCase().includes(name.toLowerCase()));
const matchesKey = (key: string, ...fields: (string | null)[]) =>
  key === "all" || fields.some((f) => f?.toLowerCase().includes(key.toLowerCase()));

function union<T extends { id: number | string }>(lists: readonly (readonly T[])[]): T[] {
  return [...new Map(lists.flat().map((item) => [String(item.id), item])).values()];
}

const expectedProducts = (): Product[] => union(UPCS.map(productsFor));
const expectedArtists = (): CatalogueArtist[] => union(ARTIST_NAMES.map(artistsFor));
const expectedTerritories = (): Territory[] =>
  union(
    TERRITORY_KEYS.map((k) =>
      data()
        .territories()
        .filter((t) => matchesKey(k, t.name, t.code)),
    ),
  );
const expectedDsps = (): Dsp[] =>
  union(
    DSP_KEYS.map((k) =>
      data()
        .dsps()
        .filter((d) => matchesKey(k, d.name, d.code)),
    ),
  );

/** Every stored row's version (xmin), by table and key: unchanged when nothing was written. */
async function rowVersions(): Promise<Record<string, string>> {
  const versions: Record<string, string> = {};
  for (const table of TABLES) {
    const rows = await harness.warehouse.query<{ key: string; xmin: string }>(
      `select (${table === "territories" ? "code" : table.replace(/s$/, "") + "_id"})::text as key, xmin::text from catalogue.${table}`,
    );
    for (const row of rows) versions[`${table}:${row.key}`] = row.xmin;
  }
  return versions;
}

beforeAll(async () => {
  harness = await startSyncHarness("catalogue", {
    today: "2026-01-31",
    sandbox: { size: { products: 350, artists: 250 } },
    etl: {
      upcs: UPCS,
      artist_names: ARTIST_NAMES,
      territory_keys: TERRITORY_KEYS,
      dsp_keys: DSP_KEYS,
    },
  });
  first = await harness.sync({ streams: catalogueStreams });
  requestsByOperation = { ...harness.upstream.sandbox.stats().byOperation };
});

afterAll(() => harness.close());

describe("catalogue streams", () => {
  it("syncs every partition of every stream", () => {
    expect(first.map((s) => [s.stream, s.partitions, s.failed.length])).toEqual([
      ["products", UPCS.length, 0],
      ["artists", ARTIST_NAMES.length, 0],
      ["territories", TERRITORY_KEYS.length, 0],
      ["dsps", DSP_KEYS.length, 0],
    ]);
  });

  it("pages each look-up until the envelope's total, 100 at a time", () => {
    const pages = (counts: number[]) =>
      counts.reduce((sum, n) => sum + Math.max(1, Math.ceil(n / 100)), 0);
    const productCounts = UPCS.map((upc) => productsFor(upc).length);
    const artistCounts = ARTIST_NAMES.map((name) => artistsFor(name).length);
    // The configuration makes some lists span several pages.
    expect(Math.max(...productCounts)).toBeGreaterThan(200);
    expect(Math.max(...artistCounts)).toBeGreaterThan(100);
    expect(requestsByOperation["catalogue.getProductByUpc"]).toBe(pages(productCounts));
    expect(requestsByOperation["catalogue.getArtistByName"]).toBe(pages(artistCounts));
    expect(requestsByOperation["artistStats.artistIdFromIdentifiers"]).toBe(
      artistCounts.reduce((a, b) => a + b, 0),
    );
  });

  it("stores each product once, with the values served", async () => {
    const expected = expectedProducts();
    // The searches overlap, and not every product matches: dedupe and selection both matter.
    expect(UPCS.reduce((sum, upc) => sum + productsFor(upc).length, 0)).toBeGreaterThan(
      expected.length,
    );
    expect(expected.length).toBeLessThan(data().products().length);
    const rows = await harness.warehouse.query(
      `select product_id, upc, title, label, label_id, release_date::text, artist_id,
              artist_name, genre, format, raw
       from catalogue.products order by product_id`,
    );
    // Only id, upc and assets are declared (what the spec shows): the others are discovered,
    // named and typed as served.
    expect(rows).toEqual(
      sortedBy(expected, (p) => String(p.id).padStart(12, "0")).map((p) => ({
        product_id: String(p.id),
        upc: p.upc,
        title: p.title,
        label: p.label,
        label_id: String(p.label_id),
        release_date: p.release_date,
        artist_id: String(p.artist_id),
        artist_name: p.artist_name,
        genre: p.genre,
        format: p.format,
        raw: p,
      })),
    );
  });

  it("stores every asset of those products with its product and ISRC", async () => {
    const expected = expectedProducts().flatMap((p) =>
      p.assets.map((a) => ({
        asset_id: String(a.id),
        product_id: String(p.id),
        isrc: a.isrc,
        title: a.title,
        duration: String(a.duration),
        track_number: String(a.track_number),
        explicit: a.explicit,
        raw: a,
      })),
    );
    const rows = await harness.warehouse.query(
      `select asset_id, product_id, isrc, title, duration, track_number, explicit, raw
       from catalogue.assets`,
    );
    expect(expected.length).toBeGreaterThan(1000);
    expect(sortedBy(rows, (r) => String(r.asset_id))).toEqual(
      sortedBy(expected, (r) => r.asset_id),
    );
  });

  it("stores each artist once, with its social artist id from the statistics API", async () => {
    const expected = expectedArtists();
    expect(ARTIST_NAMES.reduce((sum, n) => sum + artistsFor(n).length, 0)).toBeGreaterThan(
      expected.length,
    );
    const social = new Map(
      data()
        .socialArtists()
        .map((s) => [s.artist_id, s.cm_artist]),
    );
    const rows = await harness.warehouse.query(
      `select artist_id, name, organization_id, proprietary_id, social_artist_id, raw
       from catalogue.artists`,
    );
    const want = expected.map((a) => ({
      artist_id: String(a.id),
      name: a.name,
      organization_id: String(a.organization_id),
      proprietary_id: a.proprietary_id,
      social_artist_id: social.has(a.id) ? String(social.get(a.id)) : null,
      raw: a,
    }));
    expect(want.filter((a) => a.social_artist_id !== null).length).toBeGreaterThan(0);
    expect(want.filter((a) => a.social_artist_id === null).length).toBeGreaterThan(0);
    expect(sortedBy(rows, (r) => String(r.artist_id))).toEqual(sortedBy(want, (r) => r.artist_id));
  });

  it("round-trips hostile names byte for byte", async () => {
    const hostileArtists = expectedArtists().filter((a) => HOSTILE_NAMES.includes(a.name));
    // Every hostile name is among the artists synced, non-Latin ones found by their own search.
    expect(new Set(hostileArtists.map((a) => a.name))).toEqual(new Set(HOSTILE_NAMES));
    for (const artist of hostileArtists) {
      const rows = await harness.warehouse.query<{ artist_id: string; bytes: string }>(
        "select artist_id, encode(convert_to(name, 'UTF8'), 'hex') as bytes from catalogue.artists where name = $1 and artist_id = $2",
        [artist.name, artist.id],
      );
      expect(rows, JSON.stringify(artist.name)).toEqual([
        { artist_id: String(artist.id), bytes: Buffer.from(artist.name, "utf8").toString("hex") },
      ]);
    }
    const hostileTitles = expectedProducts().filter((p) => HOSTILE_NAMES.includes(p.title));
    expect(hostileTitles.length).toBeGreaterThan(0);
    for (const product of hostileTitles) {
      const rows = await harness.warehouse.query(
        "select product_id from catalogue.products where title = $1 and product_id = $2",
        [product.title, product.id],
      );
      expect(rows).toHaveLength(1);
    }
  });

  it("stores territories and DSPs de-duplicated by id", async () => {
    const territories = await harness.warehouse.query(
      "select code, territory_id, name, raw from catalogue.territories order by code",
    );
    expect(territories).toEqual(
      sortedBy(expectedTerritories(), (t) => t.code).map((t) => ({
        code: t.code,
        territory_id: t.id,
        name: t.name,
        raw: t,
      })),
    );
    expect(territories).toHaveLength(data().territories().length);

    const dsps = await harness.warehouse.query(
      "select dsp_id, name, code, state, raw from catalogue.dsps",
    );
    const expected = expectedDsps();
    expect(expected.length).toBe(data().dsps().length);
    expect(sortedBy(dsps, (d) => String(d.dsp_id))).toEqual(
      sortedBy(
        expected.map((d) => ({
          dsp_id: String(d.id),
          name: d.name,
          code: d.code,
          state: d.state,
          raw: d,
        })),
        (d) => d.dsp_id,
      ),
    );
  });

  it("writes nothing when nothing changed upstream", async () => {
    const before = await rowVersions();
    expect(Object.keys(before).length).toBeGreaterThan(1000);
    const again = await harness.sync({ streams: catalogueStreams });
    expect(failures(again)).toEqual([]);
    expect(again.map((s) => s.rowsWritten)).toEqual([0, 0, 0, 0]);
    expect(await rowVersions()).toEqual(before);
  });

  it("stores drifted records, keeping what came in raw", async () => {
    const before = await rowVersions();
    harness.upstream.sandbox.setKnobs({
      drift: { extraFields: true, numbersAsStrings: true, nulls: true, renamedEnum: true },
    });
    try {
      const drifted = await harness.sync({ streams: catalogueStreams });
      expect(failures(drifted)).toEqual([]);
    } finally {
      harness.upstream.sandbox.setKnobs({
        drift: { extraFields: false, numbersAsStrings: false, nulls: false, renamedEnum: false },
      });
    }
    // Ids sent as text are the same keys: no row appeared or vanished.
    expect(Object.keys(await rowVersions()).sort()).toEqual(Object.keys(before).sort());
    for (const table of TABLES) {
      const [row] = await harness.warehouse.query<{ n: string; extra: string; flags: string }>(
        `select count(*)::text as n,
                count(*) filter (where raw->>'x_unexpected' = 'added by a newer upstream')::text as extra,
                count(*) filter (where raw->'x_flags' = '{"beta": true}'::jsonb)::text as flags
         from catalogue.${table}`,
      );
      expect(row?.extra, table).toBe(row?.n);
      expect(row?.flags, table).toBe(row?.n);
    }
    const [types] = await harness.warehouse.query(
      `select count(*) filter (where jsonb_typeof(raw->'id') <> 'string')::int as numeric_ids,
              count(*) filter (where raw->'title' = 'null'::jsonb)::int as null_titles,
              count(*) filter (where raw->'title' = 'null'::jsonb and title is not null)::int as typed_titles
       from catalogue.assets`,
    );
    expect(types).toEqual({ numeric_ids: 0, null_titles: expect.any(Number), typed_titles: 0 });
    expect((types as { null_titles: number }).null_titles).toBeGreaterThan(0);
    // A territory whose code came as null is still keyed by its code (its id).
    const [territories] = await harness.warehouse.query<{ nulled: number; total: number }>(
      `select count(*) filter (where raw->'code' = 'null'::jsonb)::int as nulled, count(*)::int as total
       from catalogue.territories`,
    );
    expect(territories?.nulled).toBeGreaterThan(0);
    expect(territories?.total).toBe(data().territories().length);
    // Typed columns hold the drifted values read tolerantly: numbers sent as text are numbers.
    const assets = await harness.warehouse.query<{ asset_id: string; duration: string }>(
      "select asset_id, duration from catalogue.assets where raw->>'duration' is not null",
    );
    const durations = new Map(
      expectedProducts().flatMap((p) => p.assets.map((a) => [String(a.id), a.duration])),
    );
    expect(assets.length).toBeGreaterThan(0);
    for (const a of assets) expect(a.duration).toBe(String(durations.get(a.asset_id)));
  });
});
