import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { ADDED_FIELD, RENAMED_FIELDS } from "../../sandbox/renamed-fields.js";
import {
  DEFAULT_KNOBS,
  endpointRecords,
  type Income,
  type Payout,
  type Sandbox,
  type SaleType,
  type SelectionType,
  SHAPE_VARIANTS,
  type ShapeKnobs,
  type StatSeries,
  shapeVariantsPatch,
  startSandbox,
  type TrendItem,
  type TrendListItem,
  type TrendTotals,
} from "../../sandbox/index.js";
import { OTHER_SHAPE_VARIANTS } from "../../sandbox/endpoint-modules.js";
import { nodeEntry } from "../helpers/cli.js";
import { call, ok, wire } from "./call.js";

const STATS = "/api/v1/artist-stats";
const TODAY = "2026-02-15";
const CAP = 7;
const SELECTION_TYPES: SelectionType[] = ["dsp", "territory", "label", "product", "asset"];
const SALE_TYPES: SaleType[] = ["stream", "download"];
/** The variants of the endpoint modules' other shapes. */
const MODULE_VARIANTS = [...OTHER_SHAPE_VARIANTS.keys()];
/** The default knobs these tests change, to put back after each test. */
const DEFAULT_SHAPES = {
  listShape: DEFAULT_KNOBS.listShape,
  royaltiesShape: DEFAULT_KNOBS.royaltiesShape,
  chartsShape: DEFAULT_KNOBS.chartsShape,
  shapes: DEFAULT_KNOBS.shapes,
};

type Row = Record<string, unknown>;

/** The variants of independently written upstreams' habits, one knob each. */
const HABITS = [
  "failure-envelopes",
  "money-decimals",
  "numeric-booleans",
  "sql-datetimes",
  "named-objects",
  "list-snapshots",
  "php-empty",
  "latin1",
  "renamed-fields",
];

interface ArtistUrl {
  domain: string;
  url: string;
}

/** The urls the sandbox holds for an artist. */
const urlsOf = (s: Sandbox, cmArtist: number) =>
  endpointRecords("urls", s.data, { artist_id: cmArtist }) as ArtistUrl[];

/** (domain, url) pairs as sorted text, whatever the shape they came in. */
function urlPairs(records: readonly { domain: string; url: string | string[] }[]): string[] {
  return records
    .flatMap(({ domain, url }) => (Array.isArray(url) ? url : [url]).map((u) => `${domain} ${u}`))
    .sort();
}

/**
 * A list read the way a client that does not know the page size must read it: the offset moves
 * by the rows received, until an empty page. Returns the rows and the size of each page.
 */
async function drain<T>(page: (offset: number) => Promise<T[]>) {
  const rows: T[] = [];
  const sizes: number[] = [];
  for (;;) {
    const got = await page(rows.length);
    sizes.push(got.length);
    if (got.length === 0) return { rows, sizes };
    rows.push(...got);
  }
}

/** Every page but the empty last one has `cap` rows, except possibly the one before it. */
function expectCappedPages(sizes: number[], total: number, cap: number) {
  expect(sizes).toEqual([
    ...Array.from({ length: Math.floor(total / cap) }, () => cap),
    ...(total % cap === 0 ? [] : [total % cap]),
    0,
  ]);
}

/** Days of a range, YYYY-MM-DD. */
function days(start: string, count: number): string[] {
  const first = Date.parse(`${start}T00:00:00Z`);
  return Array.from({ length: count }, (_, i) =>
    new Date(first + i * 86_400_000).toISOString().slice(0, 10),
  );
}

function withoutId({ id: _id, ...rest }: Income): Omit<Income, "id"> {
  return rest;
}

describe("sandbox shape knobs", () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await startSandbox({ today: TODAY });
  });
  afterAll(() => sandbox.close());

  it("defaults to today's shapes and merges shapes field by field, validated", async () => {
    expect(DEFAULT_KNOBS.shapes).toEqual({
      otherShapes: [],
      pageCap: null,
      royaltiesPaging: "none",
      royaltiesPageSize: 10,
      foreignNextLink: null,
      wrappedObjects: false,
      incomesWithoutIds: false,
      statPoints: "timestp",
      revision: 0,
      failureEnvelopeRate: 0,
      moneyDecimals: 2,
      booleans: "json",
      datetimes: "iso",
      namedObjects: false,
      listSnapshots: false,
      phpEmpty: false,
      renamedFields: false,
      emptyCases: false,
      charset: "utf-8",
    } satisfies ShapeKnobs);
    const post = (body: unknown) =>
      call(sandbox, "/__sandbox/knobs", { method: "POST", body, authorization: null });
    const first = await post({ shapes: { pageCap: 7 } });
    expect(first.status).toBe(200);
    const second = await post({
      shapes: { otherShapes: ["urls"], foreignNextLink: "http://Evil:81/" },
    });
    expect((second.json as { knobs: { shapes: ShapeKnobs } }).knobs.shapes).toEqual({
      ...DEFAULT_KNOBS.shapes,
      pageCap: 7,
      otherShapes: ["urls"],
      foreignNextLink: "http://evil:81",
    });
    for (const shapes of [
      { pageCap: 0 },
      { pageCap: 2.5 },
      { royaltiesPaging: "cursor" },
      { royaltiesPageSize: 0 },
      { foreignNextLink: "http://evil.example/steal" },
      { foreignNextLink: "ftp://evil.example" },
      { statPoints: "points" },
      { revision: -1 },
      { otherShapes: "urls" },
      { otherShapes: ["nope"] },
      { failureEnvelopeRate: 1.5 },
      { moneyDecimals: 3 },
      { booleans: "numbers" },
      { datetimes: "rfc" },
      { namedObjects: 1 },
      { listSnapshots: "yes" },
      { phpEmpty: null },
      { emptyCases: "true" },
      { unknown: true },
      { toString: "x" },
    ]) {
      const refused = await post({ shapes });
      expect(refused.status, JSON.stringify(shapes)).toBe(400);
      expect(() => sandbox.setKnobs({ shapes } as never)).toThrow();
    }
    expect((await post({ shapes: [] })).status).toBe(400);
    sandbox.setKnobs(DEFAULT_SHAPES);
  });

  it("names the variants, and all-alternative and all-habits combine others", () => {
    expect(Object.keys(SHAPE_VARIANTS)).toEqual(
      expect.arrayContaining([
        "url-arrays",
        "capped-pages",
        "page-number",
        "next-link",
        "laravel",
        "wrapped-objects",
        "incomes-without-ids",
        "stat-date-field",
        "stat-pairs",
        "stat-metric-rows",
        "charts-length",
        "trends-object",
        "all-alternative",
        ...HABITS,
        "all-habits",
      ]),
    );
    expect(SHAPE_VARIANTS["all-habits"]).toEqual(
      shapeVariantsPatch([...MODULE_VARIANTS, "capped-pages", "incomes-without-ids", ...HABITS]),
    );
    expect(SHAPE_VARIANTS["capped-pages"]).toEqual({ shapes: { pageCap: CAP } });
    expect(SHAPE_VARIANTS["charts-length"]).toEqual({
      chartsShape: "wrapped",
      shapes: { pageCap: CAP },
    });
    expect(SHAPE_VARIANTS["trends-object"]).toEqual({
      listShape: "object",
      shapes: { pageCap: CAP },
    });
    expect(SHAPE_VARIANTS["all-alternative"]).toEqual(
      shapeVariantsPatch([
        ...MODULE_VARIANTS,
        "capped-pages",
        "laravel",
        "wrapped-objects",
        "incomes-without-ids",
        "stat-metric-rows",
      ]),
    );
    for (const variant of Object.values(SHAPE_VARIANTS)) {
      expect(() => sandbox.setKnobs(variant)).not.toThrow();
    }
    sandbox.setKnobs(DEFAULT_SHAPES);
    expect(() => shapeVariantsPatch(["laravel", "nope"])).toThrow(/unknown shape variant "nope"/);
  });
});

describe("sandbox alternative shapes serve the same records", () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await startSandbox({ today: TODAY });
  });
  afterEach(() => sandbox.setKnobs(DEFAULT_SHAPES));
  afterAll(() => sandbox.close());

  it("url-arrays: one record per domain holding its links; the same (domain, url) pairs", async () => {
    for (const artist of sandbox.data.socialArtists()) {
      const path = `${STATS}/urls?artist_id=${artist.cm_artist}`;
      const plain = await ok<{ obj: ArtistUrl[] }>(sandbox, path);
      expect(plain.obj).toEqual(wire(urlsOf(sandbox, artist.cm_artist)));
      sandbox.setKnobs(SHAPE_VARIANTS["url-arrays"] ?? {});
      const grouped = await ok<{ obj: { domain: string; url: string[] }[] }>(sandbox, path);
      sandbox.setKnobs(DEFAULT_SHAPES);
      const domains = grouped.obj.map((record) => record.domain);
      expect(new Set(domains).size).toBe(domains.length);
      for (const record of grouped.obj) {
        expect(Object.keys(record).sort()).toEqual(["domain", "url"]);
        expect(Array.isArray(record.url)).toBe(true);
        expect(record.url.length).toBeGreaterThan(0);
      }
      expect(urlPairs(grouped.obj)).toEqual(urlPairs(plain.obj));
    }
  });

  describe("capped pages", () => {
    /** An artist and list with more rows than the cap, read whole through capped pages. */
    async function expectCapped(
      truth: readonly unknown[],
      page: (offset: number) => Promise<unknown[]>,
      asked: number,
    ) {
      expect(truth.length).toBeGreaterThan(CAP);
      const uncapped = await page(0);
      expect(uncapped.length).toBe(Math.min(asked, truth.length));
      sandbox.setKnobs(SHAPE_VARIANTS["capped-pages"] ?? {});
      // A client that stops at the first page shorter than its limit reads CAP rows only.
      expect((await page(0)).length).toBe(CAP);
      const { rows, sizes } = await drain(page);
      expectCappedPages(sizes, truth.length, CAP);
      expect(rows).toEqual(wire(truth));
    }

    function artistWithMost(count: (cmArtist: number) => number): number {
      const artists = sandbox.data.socialArtists().map((artist) => artist.cm_artist);
      return artists.reduce((best, cm) => (count(cm) > count(best) ? cm : best));
    }

    it("caps /social-audience-stats", async () => {
      const rows = (cm: number) =>
        sandbox.data.socialAudienceStats(cm, "social_3", "followers", "country", TODAY);
      const cm = artistWithMost((id) => rows(id).length);
      await expectCapped(
        rows(cm),
        async (offset) =>
          (
            await ok<{ obj: Row[] }>(
              sandbox,
              `${STATS}/social-audience-stats?artist_id=${cm}&statsType=country&limit=100&offset=${offset}`,
            )
          ).obj,
        100,
      );
    });

    it("caps /editorial-playlists and /curator-playlists", async () => {
      const cm = sandbox.data.socialArtists()[0]?.cm_artist ?? 0;
      await expectCapped(
        sandbox.data.editorialPlaylists(cm, "music_streaming_1", "current"),
        async (offset) =>
          (
            await ok<{ obj: Row[] }>(
              sandbox,
              `${STATS}/editorial-playlists?artist_id=${cm}&limit=50&offset=${offset}`,
            )
          ).obj,
        50,
      );
      sandbox.setKnobs(DEFAULT_SHAPES);
      await expectCapped(
        sandbox.data.curatorPlaylists(cm, "music_streaming_2"),
        async (offset) =>
          (
            await ok<{ obj: Row[] }>(
              sandbox,
              `${STATS}/curator-playlists?artist_id=${cm}&platform=music_streaming_2&limit=50&offset=${offset}`,
            )
          ).obj,
        50,
      );
    });

    it("caps /charts in both shapes; charts-length still tells the whole chart's length", async () => {
      const truth = sandbox.data.chart("GLOBAL", "All Genres", "2026-02-10");
      const page = async (offset: number) => {
        const body = await ok<{ obj: { length: number; data: Row[] } }>(
          sandbox,
          `${STATS}/charts?date=2026-02-10&limit=100&offset=${offset}`,
        );
        expect(Object.keys(body.obj).sort()).toEqual(["data", "length"]);
        expect(body.obj.length).toBe(truth.length);
        return body.obj.data;
      };
      await expectCapped(truth, page, 100);
      sandbox.setKnobs(SHAPE_VARIANTS["charts-length"] ?? {});
      const { rows } = await drain(page);
      expect(rows).toEqual(wire(truth));

      sandbox.setKnobs({ ...DEFAULT_SHAPES, chartsShape: "array" });
      await expectCapped(
        truth,
        async (offset) =>
          (
            await ok<{ obj: Row[] }>(
              sandbox,
              `${STATS}/charts?date=2026-02-10&limit=100&offset=${offset}`,
            )
          ).obj,
        100,
      );
    });

    it("caps getTrendsList in both list shapes (trends-object)", async () => {
      const range = { start_date: "2026-01-01T00:00:00", end_date: "2026-01-30T00:00:00" };
      const body = { selection_type: "product", sale_type: "stream", ...range };
      const truth = sandbox.data.trendList("2026-01-01", "2026-01-30", "product", "stream");
      const totals = sandbox.data.trendTotals("2026-01-01", "2026-01-30", "product");
      await expectCapped(
        truth,
        (offset) =>
          ok<TrendListItem[]>(sandbox, "/api/v1/getTrendsList", {
            body: { ...body, offset, size: 50 },
          }),
        50,
      );
      sandbox.setKnobs(SHAPE_VARIANTS["trends-object"] ?? {});
      const { rows, sizes } = await drain(async (offset) => {
        const page = await ok<TrendTotals & { data: TrendListItem[] }>(
          sandbox,
          "/api/v1/getTrendsList",
          { body: { ...body, offset: String(offset), size: "50" } },
        );
        const { data, ...rest } = page;
        expect(rest).toEqual(totals);
        return data;
      });
      expectCappedPages(sizes, truth.length, CAP);
      expect(rows).toEqual(truth);
    });

    it("does not cap a limit already under the cap", async () => {
      sandbox.setKnobs(SHAPE_VARIANTS["capped-pages"] ?? {});
      const body = await ok<{ obj: { data: Row[] } }>(sandbox, `${STATS}/charts?limit=3`);
      expect(body.obj.data).toHaveLength(3);
    });
  });

  describe("royalties paging", () => {
    const LISTS = [
      { path: "/api/v1/payouts", truth: (s: Sandbox): unknown[] => s.data.payouts() },
      {
        path: "/api/v1/payouts/pending",
        truth: (s: Sandbox): unknown[] => s.data.pendingPayouts(),
      },
      { path: "/api/v1/incomes", truth: (s: Sandbox): unknown[] => s.data.incomes() },
    ];
    const pagesOf = (n: number, size = 10) => Math.max(1, Math.ceil(n / size));

    it.each(LISTS)("page-number: $path pages by current_page up to last_page", async (list) => {
      sandbox.setKnobs(SHAPE_VARIANTS["page-number"] ?? {});
      const truth = wire(list.truth(sandbox));
      const rows: unknown[] = [];
      let lastPage = 1;
      for (let page = 1; page <= lastPage; page++) {
        const body = await ok<{
          status: boolean;
          data: unknown[];
          current_page: number;
          last_page: number;
        }>(sandbox, page === 1 ? list.path : `${list.path}?page=${page}`);
        expect(Object.keys(body).sort()).toEqual(["current_page", "data", "last_page", "status"]);
        expect(body.status).toBe(true);
        expect(body.current_page).toBe(page);
        expect(body.data.length).toBeLessThanOrEqual(10);
        lastPage = body.last_page;
        rows.push(...body.data);
      }
      expect(lastPage).toBe(pagesOf(truth.length));
      expect(rows).toEqual(truth);
      const after = await ok<{ data: unknown[] }>(sandbox, `${list.path}?page=${lastPage + 1}`);
      expect(after.data).toEqual([]);
    });

    it.each(LISTS)("next-link: $path follows links.next on the sandbox's origin", async (list) => {
      sandbox.setKnobs(SHAPE_VARIANTS["next-link"] ?? {});
      const truth = wire(list.truth(sandbox));
      const rows: unknown[] = [];
      let path: string | null = list.path;
      let pages = 0;
      while (path !== null) {
        const body: { status: boolean; data: unknown[]; links: { next: string | null } } = await ok(
          sandbox,
          path,
        );
        expect(Object.keys(body).sort()).toEqual(["data", "links", "status"]);
        pages++;
        rows.push(...body.data);
        const next = body.links.next;
        if (next !== null) {
          expect(next).toBe(`${sandbox.url}${list.path}?page=${pages + 1}`);
          path = next.slice(sandbox.url.length);
        } else {
          path = null;
        }
      }
      expect(pages).toBe(pagesOf(truth.length));
      expect(rows).toEqual(truth);
    });

    it.each(LISTS)("laravel: $path serves a Laravel paginator", async (list) => {
      sandbox.setKnobs({ shapes: { royaltiesPaging: "laravel", royaltiesPageSize: 4 } });
      const truth = wire(list.truth(sandbox));
      const base = `${sandbox.url}${list.path}`;
      const last = pagesOf(truth.length, 4);
      const rows: unknown[] = [];
      let next: string | null = base;
      for (let page = 1; next !== null; page++) {
        expect(next).toBe(page === 1 ? base : `${base}?page=${page}`);
        const body: Row & { data: unknown[]; next_page_url: string | null } = await ok(
          sandbox,
          next.slice(sandbox.url.length),
        );
        const count = body.data.length;
        expect(body).toEqual({
          current_page: page,
          data: body.data,
          first_page_url: `${base}?page=1`,
          from: count > 0 ? (page - 1) * 4 + 1 : null,
          last_page: last,
          last_page_url: `${base}?page=${last}`,
          next_page_url: page < last ? `${base}?page=${page + 1}` : null,
          path: base,
          per_page: 4,
          prev_page_url: page > 1 ? `${base}?page=${page - 1}` : null,
          to: count > 0 ? (page - 1) * 4 + count : null,
          total: truth.length,
        });
        rows.push(...body.data);
        next = body.next_page_url;
      }
      expect(rows).toEqual(truth);
    });

    it("builds links from the Host the client used; foreignNextLink replaces only next links", async () => {
      sandbox.setKnobs({ shapes: { royaltiesPaging: "next-link" } });
      const port = new URL(sandbox.url).port;
      const viaHost = await call(sandbox, "/api/v1/payouts", {
        headers: { host: `localhost:${port}` },
      });
      expect((viaHost.json as { links: { next: string } }).links.next).toBe(
        `http://localhost:${port}/api/v1/payouts?page=2`,
      );
      sandbox.setKnobs({ shapes: { foreignNextLink: "http://evil.example:9999" } });
      const nextLink = await ok<{ links: { next: string } }>(sandbox, "/api/v1/incomes?page=3");
      expect(nextLink.links.next).toBe("http://evil.example:9999/api/v1/incomes?page=4");
      sandbox.setKnobs({ shapes: { royaltiesPaging: "laravel" } });
      const laravel = await ok<Row>(sandbox, "/api/v1/incomes?page=3");
      expect(laravel.next_page_url).toBe("http://evil.example:9999/api/v1/incomes?page=4");
      expect(laravel.path).toBe(`${sandbox.url}/api/v1/incomes`);
      expect(laravel.prev_page_url).toBe(`${sandbox.url}/api/v1/incomes?page=2`);
      // page-number has no links to replace.
      sandbox.setKnobs({ shapes: { royaltiesPaging: "page-number" } });
      expect(JSON.stringify(await ok(sandbox, "/api/v1/incomes"))).not.toContain("evil");
    });

    it("validates page, ignores royaltiesShape when paged, and pages nothing with none", async () => {
      sandbox.setKnobs({ royaltiesShape: "array", shapes: { royaltiesPaging: "page-number" } });
      const paged = await ok<{ data: unknown[]; last_page: number }>(sandbox, "/api/v1/payouts");
      expect(paged.data).toEqual(wire(sandbox.data.payouts().slice(0, 10)));
      for (const page of ["0", "-1", "abc", "1.5"]) {
        const refused = await call(sandbox, `/api/v1/payouts?page=${page}`);
        expect(refused.status).toBe(422);
        expect(refused.json).toMatchObject({ errors: { page: [expect.any(String)] } });
      }
      sandbox.setKnobs({ shapes: { royaltiesPaging: "none" } });
      expect(await ok(sandbox, "/api/v1/payouts?page=2")).toEqual(wire(sandbox.data.payouts()));
    });
  });

  it("wrapped-objects: /invoice and getTrendsTotal as {status: true, data}", async () => {
    const totalsBody = {
      selection_type: "dsp",
      start_date: "2026-01-01",
      end_date: "2026-01-10",
    };
    const bare = await ok(sandbox, "/api/v1/getTrendsTotal", { body: totalsBody });
    expect(bare).toEqual(sandbox.data.trendTotals("2026-01-01", "2026-01-10", "dsp"));
    expect(await ok(sandbox, "/api/v1/invoice")).toEqual(wire(sandbox.data.invoice()));
    sandbox.setKnobs(SHAPE_VARIANTS["wrapped-objects"] ?? {});
    expect(await ok(sandbox, "/api/v1/getTrendsTotal", { body: totalsBody })).toEqual({
      status: true,
      data: bare,
    });
    expect(await ok(sandbox, "/api/v1/invoice")).toEqual({
      status: true,
      data: wire(sandbox.data.invoice()),
    });
  });

  it("renamed-fields: the artist statistics' unshown fields under other names, the same values", async () => {
    const [artist] = sandbox.data.socialArtists();
    if (!artist) throw new Error("the sandbox has no social artist");
    const day = "2026-02-10";
    const path = `/api/v1/artist-stats/radio?artist_id=${artist.cm_artist}&date=${day}`;
    const plain = await ok<{ obj: Record<string, unknown>[] }>(sandbox, path);
    sandbox.setKnobs({ shapes: { renamedFields: true } });
    const renamed = await ok<{ obj: Record<string, unknown>[] }>(sandbox, path);
    const names = RENAMED_FIELDS["artistStats.radio"] ?? {};
    expect(plain.obj.length).toBeGreaterThan(0);
    expect(renamed.obj).toEqual(
      plain.obj.map((spin) => ({
        ...Object.fromEntries(
          Object.entries(spin).map(([key, value]) => [names[key] ?? key, value]),
        ),
        [ADDED_FIELD.name]: ADDED_FIELD.value,
      })),
    );
    expect(Object.keys(renamed.obj[0] ?? {})).toContain("spinCount");
    const chartPath = `/api/v1/artist-stats/charts?country_code=GLOBAL&genre=All%20Genres&date=${day}&limit=5`;
    const chart = await ok<{ obj: { data: Record<string, unknown>[] } }>(sandbox, chartPath);
    expect(Object.keys(chart.obj.data[0] ?? {})).toEqual(
      expect.arrayContaining(["rank", "previousRank", "performer"]),
    );
  });

  it("incomes-without-ids: the same incomes, without id; created_at still tells them apart", async () => {
    sandbox.setKnobs(SHAPE_VARIANTS["incomes-without-ids"] ?? {});
    const body = await ok<{ status: boolean; data: Row[] }>(sandbox, "/api/v1/incomes");
    expect(body.data.every((income) => !("id" in income))).toBe(true);
    const truth = sandbox.data.incomes();
    expect(body.data).toEqual(wire(truth.map(withoutId)));
    expect(new Set(truth.map((income) => income.created_at)).size).toBe(truth.length);
    sandbox.setKnobs({ royaltiesShape: "array" });
    expect(await ok(sandbox, "/api/v1/incomes")).toEqual(body.data);
  });

  describe("stat points", () => {
    type Canonical = Record<string, { date: string; value: unknown; daily_diff: unknown }[]>;

    function canonical(series: StatSeries): Canonical {
      return Object.fromEntries(
        Object.entries(series.metrics).map(([metric, points]) => [
          metric,
          points.map((point) => ({
            date: point.timestp.slice(0, 10),
            value: point.value,
            daily_diff: point.daily_diff,
          })),
        ]),
      );
    }

    /** The first (artist, source) pair with data, and the first without. */
    function pairs() {
      let full: [number, string] | undefined;
      let empty: [number, string] | undefined;
      for (const artist of sandbox.data.socialArtists()) {
        for (const source of ["music_streaming_1", "social_1", "video_channel", "concerts"]) {
          const { link } = sandbox.data.statSeries(artist.cm_artist, source, TODAY, TODAY);
          if (link && !full) full = [artist.cm_artist, source];
          if (!link && !empty) empty = [artist.cm_artist, source];
        }
      }
      if (!full || !empty) throw new Error("no artist with and without data");
      return { full, empty };
    }

    const WINDOW = "since=2026-02-01&until=2026-02-10";

    it("date-field, pairs and metric-rows carry the same points as timestp", async () => {
      const { full, empty } = pairs();
      for (const [cm, source] of [full, empty]) {
        const path = `${STATS}/stat/${source}?artist_id=${cm}&${WINDOW}`;
        const series = sandbox.data.statSeries(cm, source, "2026-02-01", "2026-02-10");
        const truth = canonical(series);
        const timestp = await ok<{ obj: Row }>(sandbox, path);
        expect(timestp.obj).toEqual({ link: series.link, ...series.metrics });

        sandbox.setKnobs(SHAPE_VARIANTS["stat-date-field"] ?? {});
        const dateField = await ok<{ obj: Record<string, unknown> }>(sandbox, path);
        const { link, ...metrics } = dateField.obj;
        expect(link).toBe(series.link);
        const fromDates: Canonical = {};
        for (const [metric, points] of Object.entries(metrics as Record<string, Row[]>)) {
          for (const point of points) {
            expect(Object.keys(point).sort()).toEqual([
              "daily_diff",
              "date",
              "interpolated",
              "value",
            ]);
            expect(point.date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
          }
          fromDates[metric] = points.map(({ date, value, daily_diff }) => ({
            date: String(date),
            value,
            daily_diff,
          }));
        }
        expect(fromDates).toEqual(truth);

        sandbox.setKnobs(SHAPE_VARIANTS["stat-pairs"] ?? {});
        const pairsBody = await ok<{ obj: Record<string, unknown> }>(sandbox, path);
        const { link: pairsLink, ...pairMetrics } = pairsBody.obj;
        expect(pairsLink).toBe(series.link);
        const values = (points: { value: unknown }[]) => points.map((point) => point.value);
        for (const [metric, points] of Object.entries(pairMetrics as Record<string, unknown[]>)) {
          expect(points).toEqual(
            (truth[metric] ?? []).map((point) => [
              Date.parse(`${point.date}T00:00:00Z`),
              point.value,
            ]),
          );
          expect(points.map((point) => (point as number[])[1])).toEqual(
            values(truth[metric] ?? []),
          );
        }
        expect(Object.keys(pairMetrics)).toEqual(Object.keys(truth));

        sandbox.setKnobs(SHAPE_VARIANTS["stat-metric-rows"] ?? {});
        const rows = await ok<{ obj: Row[] }>(sandbox, path);
        expect(Array.isArray(rows.obj)).toBe(true);
        const fromRows: Canonical = Object.fromEntries(
          Object.keys(truth)
            .filter((metric) => (truth[metric] ?? []).length > 0)
            .map((metric) => [metric, []]),
        );
        for (const row of rows.obj) {
          expect(Object.keys(row).sort()).toEqual(["daily_diff", "date", "metric", "value"]);
          fromRows[String(row.metric)]?.push({
            date: String(row.date),
            value: row.value,
            daily_diff: row.daily_diff,
          });
        }
        const nonEmpty = Object.fromEntries(
          Object.entries(truth).filter(([, points]) => points.length > 0),
        );
        expect(fromRows).toEqual(nonEmpty);
        expect(rows.obj.length).toBe(Object.values(truth).flat().length);
        sandbox.setKnobs(DEFAULT_SHAPES);
      }
    });
  });

  it("all-alternative: every list still adds up to the truth", async () => {
    sandbox.setKnobs(SHAPE_VARIANTS["all-alternative"] ?? {});
    const incomes: Row[] = [];
    for (let next: string | null = "/api/v1/incomes"; next !== null;) {
      const page: { data: Row[]; next_page_url: string | null } = await ok(sandbox, next);
      incomes.push(...page.data);
      next = page.next_page_url === null ? null : page.next_page_url.slice(sandbox.url.length);
    }
    expect(incomes).toEqual(wire(sandbox.data.incomes().map(withoutId)));
    expect(await ok(sandbox, "/api/v1/invoice")).toEqual({
      status: true,
      data: wire(sandbox.data.invoice()),
    });
    const cm = sandbox.data.socialArtists()[1]?.cm_artist ?? 0;
    const urls = await ok<{ obj: { domain: string; url: string[] }[] }>(
      sandbox,
      `${STATS}/urls?artist_id=${cm}`,
    );
    expect(urlPairs(urls.obj)).toEqual(urlPairs(urlsOf(sandbox, cm)));
    const { rows } = await drain(
      async (offset) =>
        (
          await ok<{ obj: { data: Row[] } }>(
            sandbox,
            `${STATS}/charts?country_code=FR&limit=200&offset=${offset}`,
          )
        ).obj.data,
    );
    expect(rows).toEqual(wire(sandbox.data.chart("FR", "All Genres", TODAY)));
  });
});

describe("sandbox revision: late data and restatements", () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await startSandbox({ today: TODAY });
  });
  afterAll(() => sandbox.close());

  const RANGE = days("2026-01-01", 30);

  /** Everything the revision may touch, as the truth accessors give it. */
  function truth(s: Sandbox) {
    const trends = new Map<string, TrendItem[]>();
    for (const day of RANGE) {
      for (const type of SELECTION_TYPES) {
        for (const sale of SALE_TYPES) {
          trends.set(`${day} ${type} ${sale}`, s.data.trendItems(day, type, sale));
        }
      }
    }
    return {
      trends,
      payouts: s.data.payouts(),
      pending: s.data.pendingPayouts(),
      incomes: s.data.incomes(),
      invoice: s.data.invoice(),
      urls: new Map(s.data.socialArtists().map((a) => [a.cm_artist, urlsOf(s, a.cm_artist)])),
    };
  }

  /** The truth of a revision as served over HTTP matches the accessors. */
  async function expectServedIsTruth(s: Sandbox) {
    expect(await ok(s, "/api/v1/payouts")).toEqual({ status: true, data: wire(s.data.payouts()) });
    expect(await ok(s, "/api/v1/payouts/pending")).toEqual({
      status: true,
      data: wire(s.data.pendingPayouts()),
    });
    expect(await ok(s, "/api/v1/incomes")).toEqual({ status: true, data: wire(s.data.incomes()) });
    expect(await ok(s, "/api/v1/invoice")).toEqual(wire(s.data.invoice()));
    for (const artist of s.data.socialArtists()) {
      expect(await ok(s, `${STATS}/urls?artist_id=${artist.cm_artist}`)).toEqual({
        obj: wire(urlsOf(s, artist.cm_artist)),
      });
    }
    const totals = { selection_type: "product", start_date: "2026-01-01", end_date: "2026-01-30" };
    expect(await ok(s, "/api/v1/getTrendsTotal", { body: totals })).toEqual(
      s.data.trendTotals("2026-01-01", "2026-01-30", "product"),
    );
    const range = { start_date: "2026-01-20T00:00:00", end_date: "2026-01-30T00:00:00" };
    const list = { selection_type: "label", sale_type: "download", ...range, size: 500 };
    expect(await ok(s, "/api/v1/getTrendsList", { body: list })).toEqual(
      s.data.trendList("2026-01-20", "2026-01-30", "label", "download"),
    );
    expect(await ok(s, "/api/v1/getTrendsChart", { body: list })).toEqual(
      s.data.trendChart("2026-01-20", "2026-01-30", "label", "download"),
    );
  }

  it("at revision 0 changes nothing", () => {
    expect(sandbox.data.revision).toBe(0);
    expect(sandbox.data.revisionChanges()).toEqual({
      revision: 0,
      trendDays: [],
      restatedIncomeIds: [],
      paidPayoutId: null,
    });
  });

  describe("at revision 1", () => {
    let before: ReturnType<typeof truth>;
    let beforeTotals: ReturnType<Sandbox["data"]["trendTotals"]>;
    let beforeChart: ReturnType<Sandbox["data"]["trendChart"]>;
    let after: ReturnType<typeof truth>;
    let changes: ReturnType<Sandbox["data"]["revisionChanges"]>;

    beforeAll(async () => {
      before = truth(sandbox);
      beforeTotals = sandbox.data.trendTotals("2026-01-01", "2026-01-30", "product");
      beforeChart = sandbox.data.trendChart("2026-01-20", "2026-01-30", "label", "download");
      const set = await call(sandbox, "/__sandbox/knobs", {
        method: "POST",
        body: { shapes: { revision: 1 } },
      });
      expect(set.status).toBe(200);
      changes = sandbox.data.revisionChanges();
      after = truth(sandbox);
    });
    afterAll(() => sandbox.setKnobs({ shapes: { revision: 0, otherShapes: [] } }));

    it("raises the sales of the 3 last days with sales, and only theirs", () => {
      expect(sandbox.data.revision).toBe(1);
      // The data ends on 2026-01-30.
      expect(changes.trendDays).toEqual(["2026-01-28", "2026-01-29", "2026-01-30"]);
      for (const [key, items] of after.trends) {
        const previous = before.trends.get(key) ?? [];
        if (changes.trendDays.includes(key.slice(0, 10))) {
          expect(items.map((item) => item.id)).toEqual(previous.map((item) => item.id));
          for (const [i, item] of items.entries()) {
            expect(item.count).toBeGreaterThan(previous[i]?.count ?? Infinity);
          }
        } else {
          expect(items, key).toEqual(previous);
        }
      }
      const totals = sandbox.data.trendTotals("2026-01-01", "2026-01-30", "product");
      expect(totals.stream_count).toBeGreaterThan(beforeTotals.stream_count);
      expect(totals.download_count).toBeGreaterThan(beforeTotals.download_count);
      expect(sandbox.data.trendTotals("2026-01-01", "2026-01-27", "product")).toEqual(
        truthTotals(before.trends, "2026-01-01", 27, "product"),
      );
      const chart = sandbox.data.trendChart("2026-01-20", "2026-01-30", "label", "download");
      const total = chart.data[0]?.totals ?? [];
      const totalBefore = beforeChart.data[0]?.totals ?? [];
      expect(total.slice(0, 8)).toEqual(totalBefore.slice(0, 8));
      for (const i of [8, 9, 10]) expect(total[i]).toBeGreaterThan(totalBefore[i] ?? Infinity);
    });

    it("restates some incomes (same identity and id, another amount), the invoice adding up", () => {
      expect(changes.restatedIncomeIds.length).toBeGreaterThan(0);
      expect(after.incomes).toHaveLength(before.incomes.length);
      for (const [i, income] of after.incomes.entries()) {
        const previous = before.incomes[i] as Income;
        if (changes.restatedIncomeIds.includes(income.id)) {
          expect(income.amount).not.toBe(previous.amount);
          expect(income.amount).toMatch(/^\d+\.\d{2}$/);
          expect({ ...income, amount: previous.amount }).toEqual(previous);
        } else {
          expect(income).toEqual(previous);
        }
      }
      const lineSum = after.invoice.lines.reduce(
        (sum, line) => sum + Math.round(Number(line.amount) * 100),
        0,
      );
      expect(Math.round(Number(after.invoice.total) * 100)).toBe(lineSum);
    });

    it("pays one pending payout, changing nothing else of it", () => {
      const paid = changes.paidPayoutId;
      expect(paid).not.toBeNull();
      for (const [i, payout] of after.payouts.entries()) {
        const previous = before.payouts[i] as Payout;
        if (payout.id !== paid) {
          expect(payout).toEqual(previous);
          continue;
        }
        expect(previous.status).toBe("pending");
        expect(payout.status).toBe("paid");
        expect(payout.processed_at).toBe(`${TODAY}T06:00:00Z`);
        expect(payout.method).not.toBeNull();
        expect(payout.reference).not.toBeNull();
        const { status: _s, processed_at: _p, method: _m, reference: _r, ...rest } = payout;
        const {
          status: _s2,
          processed_at: _p2,
          method: _m2,
          reference: _r2,
          ...restBefore
        } = previous;
        expect(rest).toEqual(restBefore);
      }
      expect(after.pending).toEqual(before.pending.filter((payout) => payout.id !== paid));
    });

    it("removes one link of the first artist's urls and adds another", () => {
      const [first] = sandbox.data.socialArtists();
      for (const [cm, urls] of after.urls) {
        const previous = urlPairs(before.urls.get(cm) ?? []);
        if (cm !== first?.cm_artist) {
          expect(urlPairs(urls)).toEqual(previous);
          continue;
        }
        const now = urlPairs(urls);
        expect(previous.filter((pair) => !now.includes(pair))).toHaveLength(1);
        expect(now.filter((pair) => !previous.includes(pair))).toHaveLength(1);
      }
    });

    it("serves what it holds, in the default shapes and in url-arrays", async () => {
      await expectServedIsTruth(sandbox);
      const cmArtist = sandbox.data.socialArtists()[0]?.cm_artist ?? 0;
      sandbox.setKnobs(SHAPE_VARIANTS["url-arrays"] ?? {});
      const grouped = await ok<{ obj: { domain: string; url: string[] }[] }>(
        sandbox,
        `${STATS}/urls?artist_id=${cmArtist}`,
      );
      expect(urlPairs(grouped.obj)).toEqual(urlPairs(urlsOf(sandbox, cmArtist)));
      expect(grouped.obj.find((record) => record.domain === "website")?.url).toHaveLength(2);
      sandbox.setKnobs({ shapes: { otherShapes: [] } });
    });

    it("moves the late sales and restatements further at revision 2; the payout and urls stay", async () => {
      sandbox.setKnobs({ shapes: { revision: 2 } });
      const second = truth(sandbox);
      expect(sandbox.data.revisionChanges()).toEqual({ ...changes, revision: 2 });
      for (const day of changes.trendDays) {
        const key = `${day} product stream`;
        const counts1 = (after.trends.get(key) ?? []).map((item) => item.count);
        const counts2 = (second.trends.get(key) ?? []).map((item) => item.count);
        counts2.forEach((count, i) => expect(count).toBeGreaterThan(counts1[i] ?? Infinity));
      }
      for (const id of changes.restatedIncomeIds) {
        const amount = (list: Income[]) => list.find((income) => income.id === id)?.amount;
        expect(amount(second.incomes)).not.toBe(amount(after.incomes));
      }
      expect(second.payouts).toEqual(after.payouts);
      expect(second.urls).toEqual(after.urls);
      await expectServedIsTruth(sandbox);
    });

    it("is the dataset as generated again at revision 0", () => {
      sandbox.setKnobs({ shapes: { revision: 0 } });
      expect(truth(sandbox)).toEqual(before);
    });
  });

  it("is deterministic, follows today, and lets an explicit payout status win", async () => {
    const first = await startSandbox({ today: TODAY, knobs: { shapes: { revision: 1 } } });
    const second = await startSandbox({ today: TODAY });
    try {
      second.setKnobs({ shapes: { revision: 1 } });
      expect(truth(first)).toEqual(truth(second));
      expect(first.data.revisionChanges()).toEqual(second.data.revisionChanges());
      const paid = first.data.revisionChanges().paidPayoutId ?? "";
      first.data.setPayoutStatus(paid, "cancelled");
      expect(first.data.payouts().find((payout) => payout.id === paid)?.status).toBe("cancelled");
      expect(first.data.revisionChanges().paidPayoutId).toBeNull();
    } finally {
      await first.close();
      await second.close();
    }
    const inRange = await startSandbox({ today: "2026-01-20", knobs: { shapes: { revision: 1 } } });
    try {
      expect(inRange.data.revisionChanges().trendDays).toEqual([
        "2026-01-17",
        "2026-01-18",
        "2026-01-19",
      ]);
    } finally {
      await inRange.close();
    }
  });
});

/** Range totals recomputed from per-day items, to show an untouched range is untouched. */
function truthTotals(
  trends: Map<string, TrendItem[]>,
  start: string,
  length: number,
  type: SelectionType,
): TrendTotals {
  const sum = (sale: SaleType) =>
    days(start, length).reduce(
      (total, day) =>
        total + (trends.get(`${day} ${type} ${sale}`) ?? []).reduce((s, item) => s + item.count, 0),
      0,
    );
  // No sales before 2026-01-01: the previous period is empty, so the change is 0.
  return {
    stream_count: sum("stream"),
    stream_percentage: 0,
    download_count: sum("download"),
    download_percentage: 0,
  };
}

describe("sandbox CLI --shapes", () => {
  let child: ChildProcess | undefined;
  afterEach(() => {
    if (child && child.exitCode === null) child.kill("SIGKILL");
  });

  function startCli(args: string[]) {
    const spawned = spawn(process.execPath, [...nodeEntry("sandbox/main.ts"), ...args], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    child = spawned;
    let output = "";
    const firstLine = new Promise<string>((resolve, reject) => {
      spawned.stdout?.on("data", (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes("\n")) resolve(output.split("\n")[0] ?? "");
      });
      spawned.once("exit", (code) => reject(new Error(`exited with ${code} before printing`)));
    });
    firstLine.catch(() => undefined);
    return { child: spawned, firstLine };
  }

  it("starts with the named variants combined", async () => {
    const cli = startCli(["--port", "0", "--shapes", "laravel, url-arrays,stat-pairs"]);
    const line = await cli.firstLine;
    const url = /http:\/\/\S+/.exec(line)?.[0] ?? "";
    const response = await fetch(`${url}/__sandbox/knobs`, { method: "POST", body: "{}" });
    const { knobs } = (await response.json()) as { knobs: { shapes: ShapeKnobs } };
    expect(knobs.shapes).toEqual({
      ...DEFAULT_KNOBS.shapes,
      royaltiesPaging: "laravel",
      otherShapes: ["urls"],
      statPoints: "pairs",
    });
    const payouts = await fetch(`${url}/api/v1/payouts`, {
      headers: { authorization: "Bearer sandbox-key" },
    });
    expect(await payouts.json()).toMatchObject({ current_page: 1, per_page: 10, total: 25 });
    const exited = once(cli.child, "exit");
    cli.child.kill("SIGTERM");
    expect((await exited)[0]).toBe(0);
  });

  it("serves two habits at once: --shapes money-decimals,sql-datetimes", async () => {
    const cli = startCli(["--port", "0", "--shapes", "money-decimals,sql-datetimes"]);
    const line = await cli.firstLine;
    const url = /http:\/\/\S+/.exec(line)?.[0] ?? "";
    const response = await fetch(`${url}/api/v1/payouts`, {
      headers: { authorization: "Bearer sandbox-key" },
    });
    const { data } = (await response.json()) as { data: Payout[] };
    expect(data.length).toBeGreaterThan(0);
    for (const payout of data) {
      expect(String(payout.amount)).toMatch(/^\d+(\.\d{1,4})?$/);
      expect(payout.created_at).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d{3})?$/);
    }
    expect(data.some((payout) => /^\d+\.\d{4}$/.test(String(payout.amount)))).toBe(true);
    const exited = once(cli.child, "exit");
    cli.child.kill("SIGTERM");
    expect((await exited)[0]).toBe(0);
  });

  it("refuses an unknown variant with exit code 2", async () => {
    const cli = startCli(["--port", "0", "--shapes", "laravel,cursor"]);
    const [code] = await once(cli.child, "exit");
    expect(code).toBe(2);
  });
});

/** Every scalar of a body with its key, depth first: what a habit test looks through. */
function scalars(
  value: unknown,
  key: string | null = null,
): { key: string | null; value: unknown }[] {
  if (Array.isArray(value)) return value.flatMap((item) => scalars(item, key));
  if (typeof value === "object" && value !== null) {
    return Object.entries(value).flatMap(([k, child]) => scalars(child, k));
  }
  return [{ key, value }];
}

describe("sandbox habits of independently written upstreams", () => {
  let sandbox: Sandbox;
  let cm: number;
  beforeAll(async () => {
    sandbox = await startSandbox({ today: TODAY });
    cm = sandbox.data.socialArtists()[0]?.cm_artist ?? 0;
  });
  afterEach(() => sandbox.setKnobs(DEFAULT_SHAPES));
  afterAll(() => sandbox.close());

  /** The royalties GETs' bodies, read the default (wrapped) way. */
  async function royaltiesBodies() {
    const list = async (path: string) => (await ok<{ data: Row[] }>(sandbox, path)).data;
    return {
      payouts: await list("/api/v1/payouts"),
      pending: await list("/api/v1/payouts/pending"),
      incomes: await list("/api/v1/incomes"),
      invoice: await ok<Row & { lines: Row[] }>(sandbox, "/api/v1/invoice"),
    };
  }

  describe("failure-envelopes", () => {
    const FORMS = [
      (b: Row) => b.status === false && typeof b.message === "string" && !("type" in b),
      (b: Row) => b.status === false && typeof b.message === "string" && b.type === 2,
      (b: Row) => b.success === false && typeof b.error === "string",
      (b: Row) => b.error === "Service temporarily unavailable",
      (b: Row) => Array.isArray(b.errors) && typeof (b.errors as Row[])[0]?.message === "string",
      (b: Row) => b.status === "error" && typeof b.message === "string",
    ];
    const isEnvelope = (body: unknown) =>
      typeof body === "object" && body !== null && !Array.isArray(body);

    it("replaces about the rate of GET answers with 200 failure bodies of every form", async () => {
      sandbox.setKnobs(SHAPE_VARIANTS["failure-envelopes"] ?? {});
      sandbox.resetStats();
      const seen = new Set<number>();
      let envelopes = 0;
      const truth = wire(sandbox.data.territories());
      for (let i = 0; i < 600; i++) {
        const result = await call(sandbox, "/api/v1/getTerritories/all");
        expect(result.status).toBe(200);
        if (Array.isArray(result.json)) {
          expect(result.json).toEqual(truth);
          continue;
        }
        expect(isEnvelope(result.json)).toBe(true);
        const form = FORMS.findIndex((matches) => matches(result.json as Row));
        expect(form, result.text).toBeGreaterThanOrEqual(0);
        seen.add(form);
        envelopes++;
      }
      expect(envelopes).toBeGreaterThan(30);
      expect(envelopes).toBeLessThan(90);
      expect([...seen].sort()).toEqual([0, 1, 2, 3, 4, 5]);
      expect(sandbox.stats().failureEnvelopes).toBe(envelopes);
    });

    it("lets another attempt of the same request succeed, and never touches a write", async () => {
      sandbox.setKnobs({ shapes: { failureEnvelopeRate: 0.5 } });
      const path = `${STATS}/cm-stats?artist_id=${cm}`;
      const outcomes: string[] = [];
      for (let attempt = 0; attempt < 20; attempt++) {
        const body = await ok<Row>(sandbox, path);
        if ("obj" in body) expect(body.obj).toEqual(wire(sandbox.data.cmStats(cm)));
        outcomes.push("obj" in body ? "answer" : "failure");
      }
      // The same request, failed then answered on the next attempt.
      expect(outcomes.join(" ")).toContain("failure answer");
      sandbox.setKnobs({ shapes: { failureEnvelopeRate: 1 } });
      const write = await ok<Row>(sandbox, "/api/v1/setThreshold", {
        method: "POST",
        body: { amount: 150 },
      });
      expect(write).toEqual({ status: true, message: "Threshold updated", threshold: "150.00" });
      const read = await ok<Row>(sandbox, "/api/v1/invoice");
      expect(FORMS.some((matches) => matches(read))).toBe(true);
    });
  });

  describe("money-decimals", () => {
    it("serves every amount with 4 decimals, half as numbers, half as text, exactly the truth", async () => {
      sandbox.setKnobs(SHAPE_VARIANTS["money-decimals"] ?? {});
      const served = await royaltiesBodies();
      expect(served.payouts).toEqual(wire(sandbox.data.payouts()));
      expect(served.pending).toEqual(wire(sandbox.data.pendingPayouts()));
      expect(served.incomes).toEqual(wire(sandbox.data.incomes()));
      expect(served.invoice).toEqual(wire(sandbox.data.invoice()));
      const amounts = [
        ...served.payouts.flatMap((p) => [p.amount, p.fees, p.net_amount, p.wallet]),
        ...served.incomes.map((i) => i.amount),
        served.invoice.total,
        ...served.invoice.lines.map((line) => line.amount),
      ];
      const texts = amounts.filter((amount): amount is string => typeof amount === "string");
      const numbers = amounts.filter((amount): amount is number => typeof amount === "number");
      expect(texts.length + numbers.length).toBe(amounts.length);
      for (const text of texts) expect(text).toMatch(/^\d+\.\d{4}$/);
      for (const number of numbers) expect(String(number)).toMatch(/^\d+(\.\d{1,4})?$/);
      expect(texts.length / amounts.length).toBeGreaterThan(0.35);
      expect(numbers.length / amounts.length).toBeGreaterThan(0.35);
      expect(texts.some((text) => text.endsWith("00"))).toBe(true);
      expect(numbers.some((number) => /\.\d{3}[1-9]$/.test(String(number)))).toBe(true);
    });

    it("keeps the truth exact: fees, net amounts and invoice sums in ten-thousandths", () => {
      sandbox.setKnobs({ shapes: { moneyDecimals: 4 } });
      const units = (amount: unknown) => {
        const [whole = "0", fraction = ""] = String(amount).split(".");
        return Number(whole) * 10_000 + Number(fraction.padEnd(4, "0"));
      };
      for (const p of sandbox.data.payouts()) {
        const fees = Math.max(10_000, Math.round(units(p.amount) * 0.015));
        expect(units(p.fees)).toBe(fees);
        expect(units(p.net_amount)).toBe(units(p.amount) - fees);
      }
      const invoice = sandbox.data.invoice();
      const period = sandbox.data.incomes().filter((income) => income.period === invoice.period);
      const sum = (values: unknown[]) => values.reduce<number>((s, v) => s + units(v), 0);
      expect(units(invoice.total)).toBe(sum(invoice.lines.map((line) => line.amount)));
      expect(units(invoice.total)).toBe(sum(period.map((income) => income.amount)));
      // Back to 2 decimals: the cents served before, as text.
      sandbox.setKnobs({ shapes: { moneyDecimals: 2 } });
      for (const p of sandbox.data.payouts()) expect(p.amount).toMatch(/^\d+\.\d{2}$/);
      expect(typeof sandbox.data.payouts()[0]?.wallet).toBe("number");
    });
  });

  it('numeric-booleans: every boolean as 1/0, "1"/"0" or "true"/"false", meaning the truth', async () => {
    const truthAssets = wire(
      sandbox.data
        .products()
        .slice(0, 25)
        .flatMap((p) => p.assets),
    );
    const path = `${STATS}/stat/music_streaming_1?artist_id=${cm}&since=2025-12-01`;
    const truthPoints = wire(
      Object.values(sandbox.data.statSeries(cm, "music_streaming_1", "2025-12-01", TODAY).metrics),
    ).flat();
    sandbox.setKnobs(SHAPE_VARIANTS["numeric-booleans"] ?? {});
    const products = await ok<{ product: { assets: Row[] }[] }>(
      sandbox,
      "/api/v1/getproductByupc/0?page_size=25",
    );
    const stat = await ok<{ obj: Record<string, Row[]> }>(sandbox, path);
    const playlists = await ok<{ obj: { playlist: Row }[] }>(
      sandbox,
      `${STATS}/editorial-playlists?artist_id=${cm}`,
    );
    const artists = await ok<{ artist: { photo: Row }[] }>(sandbox, "/api/v1/getArtistByName/a");
    const all = [products, stat, playlists, artists].flatMap((body) => scalars(body));
    expect(all.filter(({ value }) => typeof value === "boolean")).toEqual([]);
    const decoded = (value: unknown) => ["1", "true", 1].includes(value as never);
    const forms = new Set<string>();
    const check = (served: unknown, truth: boolean) => {
      expect([1, 0, "1", "0", "true", "false"]).toContain(served);
      expect(decoded(served)).toBe(truth);
      forms.add(
        typeof served === "number" ? "number" : /\d/.test(String(served)) ? "digit" : "word",
      );
    };
    const assets = products.product.flatMap((p) => p.assets);
    assets.forEach((asset, i) => check(asset.explicit, truthAssets[i]?.explicit ?? false));
    const points = Object.entries(stat.obj).flatMap(([metric, list]) =>
      metric === "link" ? [] : list,
    );
    points.forEach((point, i) => check(point.interpolated, truthPoints[i]?.interpolated ?? false));
    for (const { playlist } of playlists.obj) check(playlist.editorial, true);
    for (const { photo } of artists.artist)
      expect([1, 0, "1", "0", "true", "false"]).toContain(photo.has_uploaded);
    expect([...forms].sort()).toEqual(["digit", "number", "word"]);
  });

  it("sql-datetimes: every instant as YYYY-MM-DD hh:mm:ss[.SSS], the same UTC instant", async () => {
    const sql = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d{3})?$/;
    const truth = {
      payouts: wire(sandbox.data.payouts()),
      incomes: wire(sandbox.data.incomes()),
      invoice: wire(sandbox.data.invoice()),
      cmStats: wire(sandbox.data.cmStats(cm)),
      playlists: wire(sandbox.data.editorialPlaylists(cm, "music_streaming_1", "past")),
    };
    sandbox.setKnobs(SHAPE_VARIANTS["sql-datetimes"] ?? {});
    const served = await royaltiesBodies();
    const cmStats = await ok<{ obj: Row }>(sandbox, `${STATS}/cm-stats?artist_id=${cm}`);
    const playlists = await ok<{ obj: { playlist: Row }[] }>(
      sandbox,
      `${STATS}/editorial-playlists?artist_id=${cm}&status=past&limit=100`,
    );
    const asUtc = (text: unknown) => Date.parse(`${String(text).replace(" ", "T")}Z`);
    const same = (servedValue: unknown, truthValue: unknown) => {
      if (truthValue === null) return expect(servedValue).toBeNull();
      expect(servedValue).toMatch(sql);
      expect(asUtc(servedValue)).toBe(Date.parse(truthValue as string));
    };
    const fractions: boolean[] = [];
    served.payouts.forEach((p, i) => {
      same(p.created_at, truth.payouts[i]?.created_at);
      same(p.processed_at, truth.payouts[i]?.processed_at);
      fractions.push(String(p.created_at).includes("."));
    });
    served.incomes.forEach((income, i) => same(income.created_at, truth.incomes[i]?.created_at));
    same(served.invoice.issued_at, truth.invoice.issued_at);
    same(cmStats.obj.timestp, truth.cmStats.timestp);
    playlists.obj.forEach(({ playlist }, i) => {
      same(playlist.added_at, truth.playlists[i]?.playlist.added_at);
      same(playlist.removed_at, truth.playlists[i]?.playlist.removed_at);
    });
    expect(fractions).toContain(true);
    expect(fractions).toContain(false);
    const photos = await ok<{ artist: { photo: Row }[] }>(sandbox, "/api/v1/getArtistByName/a");
    for (const { photo } of photos.artist) expect(photo.modificationTime).toMatch(sql);
    // Days stay days.
    const radio = await ok<{ obj: Row[] }>(sandbox, `${STATS}/radio?artist_id=${cm}`);
    for (const row of radio.obj) expect(row.date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });

  it("named-objects: objects and lists under named keys, charts and trends in nested paging", async () => {
    sandbox.setKnobs(SHAPE_VARIANTS["named-objects"] ?? {});
    expect(await ok(sandbox, "/api/v1/invoice")).toEqual({
      status: true,
      invoice: wire(sandbox.data.invoice()),
    });
    const totals = { selection_type: "dsp", start_date: "2026-01-01", end_date: "2026-01-10" };
    expect(await ok(sandbox, "/api/v1/getTrendsTotal", { body: totals })).toEqual({
      status: true,
      totals: sandbox.data.trendTotals("2026-01-01", "2026-01-10", "dsp"),
    });
    expect(await ok(sandbox, "/api/v1/payouts")).toEqual({
      status: true,
      payouts: wire(sandbox.data.payouts()),
    });
    expect(await ok(sandbox, "/api/v1/payouts/pending")).toEqual({
      status: true,
      pending_payouts: wire(sandbox.data.pendingPayouts()),
    });
    expect(await ok(sandbox, "/api/v1/incomes")).toEqual({
      status: true,
      incomes: wire(sandbox.data.incomes()),
    });
    const chart = sandbox.data.chart("GLOBAL", "All Genres", TODAY);
    expect(await ok(sandbox, `${STATS}/charts?limit=10&offset=20`)).toEqual({
      obj: { data: { data: wire(chart.slice(20, 30)), total: chart.length } },
    });
    const range = { start_date: "2026-01-01T00:00:00", end_date: "2026-01-10T00:00:00" };
    const list = sandbox.data.trendList("2026-01-01", "2026-01-10", "label", "stream");
    const body = { selection_type: "label", sale_type: "stream", ...range, offset: 4, size: 2 };
    expect(await ok(sandbox, "/api/v1/getTrendsList", { body })).toEqual({
      data: { data: list.slice(4, 6), total: list.length, page: 3 },
    });
  });

  it("list-snapshots: market coverage as its markets, cm-stats and audience as [object]", async () => {
    sandbox.setKnobs(SHAPE_VARIANTS["list-snapshots"] ?? {});
    expect(await ok(sandbox, `${STATS}/video-market-coverage?artist_id=${cm}`)).toEqual({
      obj: wire(sandbox.data.videoMarketCoverage(cm).markets),
    });
    expect(await ok(sandbox, `${STATS}/cm-stats?artist_id=${cm}`)).toEqual({
      obj: [wire(sandbox.data.cmStats(cm))],
    });
    for (const domain of ["social_3", "short_video", "video"] as const) {
      const path = `${STATS}/${domain}-audience-stats?artist_id=${cm}`;
      expect(await ok(sandbox, path)).toEqual({
        obj: [wire(sandbox.data.audienceStats(cm, domain))],
      });
    }
  });

  it("php-empty: empty objects as [], with an empty case of each kind in the dataset", async () => {
    const audience = `${STATS}/video-audience-stats?artist_id=${cm}`;
    sandbox.setKnobs({ shapes: { emptyCases: true } });
    // The empty cases alone: empty objects, as a JSON upstream sends them.
    expect(sandbox.data.audienceStats(cm, "video")).toEqual({});
    expect(await ok(sandbox, audience)).toEqual({ obj: {} });
    const bare = sandbox.data.artists().find((artist) => Object.keys(artist.photo).length === 0);
    expect(bare).toBeDefined();
    expect(sandbox.data.payouts()[0]?.metadata).toEqual({});
    expect(sandbox.data.pendingPayouts()).toHaveLength(1);

    sandbox.setKnobs(SHAPE_VARIANTS["php-empty"] ?? {});
    expect(await ok(sandbox, audience)).toEqual({ obj: [] });
    const other = await ok<{ obj: Row }>(
      sandbox,
      `${STATS}/social_3-audience-stats?artist_id=${cm}`,
    );
    expect(other.obj).toEqual(wire(sandbox.data.audienceStats(cm, "social_3")));
    const found = await ok<{ artist: Row[] }>(
      sandbox,
      `/api/v1/getArtistByName/${encodeURIComponent(bare?.name ?? "")}`,
    );
    expect(found.artist.find((artist) => artist.id === bare?.id)?.photo).toEqual([]);
    const payouts = await ok<{ data: Row[] }>(sandbox, "/api/v1/payouts");
    expect(payouts.data[0]?.metadata).toEqual([]);
    expect(payouts.data[1]?.metadata).toEqual(wire(sandbox.data.payouts()[1]?.metadata));
    sandbox.setKnobs({ shapes: { revision: 1 } });
    expect(await ok(sandbox, "/api/v1/payouts/pending")).toEqual({ status: true, data: [] });
    sandbox.setKnobs({ ...DEFAULT_SHAPES, shapes: { ...DEFAULT_KNOBS.shapes, revision: 0 } });
    expect(sandbox.data.audienceStats(cm, "video")).toMatchObject({ domain: "video" });
  });

  it("all-habits: the same bytes from the same seed and knobs, failures included", async () => {
    const knobs = SHAPE_VARIANTS["all-habits"] ?? {};
    const one = await startSandbox({ today: TODAY, knobs });
    const twin = await startSandbox({ today: TODAY, knobs });
    try {
      for (const path of [
        "/api/v1/payouts",
        "/api/v1/incomes",
        `${STATS}/cm-stats?artist_id=${cm}`,
      ]) {
        for (let i = 0; i < 5; i++) {
          expect((await call(twin, path)).text).toBe((await call(one, path)).text);
        }
      }
    } finally {
      await one.close();
      await twin.close();
    }
  });
});
