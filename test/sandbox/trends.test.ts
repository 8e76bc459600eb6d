import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type Sandbox,
  type SelectionType,
  startSandbox,
  type TrendChart,
  type TrendListItem,
} from "../../sandbox/index.js";
import { call, ok } from "./call.js";

const SELECTION_TYPES: SelectionType[] = ["dsp", "territory", "label", "product", "asset"];

function listBody(selectionType: SelectionType, extra: Record<string, unknown> = {}) {
  return {
    selection_type: selectionType,
    sale_type: "stream",
    start_date: "2026-01-05T00:00:00",
    end_date: "2026-01-11T23:59:59",
    ...extra,
  };
}

/** Every page of a trends list, paged with `size` until a short page. */
async function wholeList(sandbox: Sandbox, body: Record<string, unknown>, size: number) {
  const items: TrendListItem[] = [];
  for (let offset = 0; ; offset += size) {
    const page = await ok<TrendListItem[]>(sandbox, "/api/v1/getTrendsList", {
      body: { ...body, offset: String(offset), size: String(size) },
    });
    items.push(...page);
    if (page.length < size) return items;
  }
}

function days(start: string, count: number): string[] {
  const first = Date.parse(`${start}T00:00:00Z`);
  return Array.from({ length: count }, (_, i) =>
    new Date(first + i * 86_400_000).toISOString().slice(0, 10),
  );
}

describe("sandbox sales trends", () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await startSandbox({ today: "2026-02-15" });
  });
  afterAll(() => sandbox.close());

  it.each(SELECTION_TYPES)(
    "pages the %s list; pages concatenate to the summed days",
    async (type) => {
      const items = await wholeList(sandbox, listBody(type), 50);
      expect(items).toEqual(sandbox.data.trendList("2026-01-05", "2026-01-11", type, "stream"));
      const sums = new Map<string, number>();
      for (const day of days("2026-01-05", 7)) {
        for (const item of sandbox.data.trendItems(day, type, "stream")) {
          sums.set(String(item.id), (sums.get(String(item.id)) ?? 0) + item.count);
        }
      }
      expect(new Map(items.map((item) => [String(item.id), item.count]))).toEqual(sums);
      const total = items.reduce((sum, item) => sum + item.count, 0);
      for (const item of items) expect(item.percentage).toBeCloseTo((item.count / total) * 100, 2);
      for (let i = 1; i < items.length; i++) {
        expect((items[i - 1]?.count ?? 0) >= (items[i]?.count ?? 0)).toBe(true);
      }
    },
  );

  it("makes product and asset lists need several pages of 50, with ids of the right kind", () => {
    for (const type of ["product", "asset"] as const) {
      const items = sandbox.data.trendList("2026-01-05", "2026-01-11", type, "stream");
      expect(items.length).toBeGreaterThan(100);
      for (const item of items) expect(typeof item.id).toBe("number");
    }
    const territories = sandbox.data.trendList("2026-01-05", "2026-01-11", "territory", "stream");
    for (const item of territories) expect(item.id).toMatch(/^[A-Z]{2}$/);
  });

  it("defaults size to 50, and takes offset and size as numbers too", async () => {
    const first = await ok<TrendListItem[]>(sandbox, "/api/v1/getTrendsList", {
      body: listBody("asset"),
    });
    expect(first).toHaveLength(50);
    const numeric = await ok<TrendListItem[]>(sandbox, "/api/v1/getTrendsList", {
      body: listBody("asset", { offset: 50, size: 500 }),
    });
    expect(numeric[0]).toEqual(
      sandbox.data.trendList("2026-01-05", "2026-01-11", "asset", "stream")[50],
    );
  });

  it("has many more streams than downloads", () => {
    const totals = sandbox.data.trendTotals("2026-01-01", "2026-01-30", "product");
    expect(totals.stream_count).toBeGreaterThan(totals.download_count * 50);
    expect(totals.download_count).toBeGreaterThan(0);
  });

  it("answers totals as sums over the range, with the change against the previous period", async () => {
    const body = await ok(sandbox, "/api/v1/getTrendsTotal", {
      body: { selection_type: "dsp", start_date: "2026-01-15", end_date: "2026-01-21" },
    });
    const sum = (start: string, sale: "stream" | "download") =>
      days(start, 7).reduce(
        (total, day) =>
          total + sandbox.data.trendItems(day, "dsp", sale).reduce((s, item) => s + item.count, 0),
        0,
      );
    const streams = sum("2026-01-15", "stream");
    const previous = sum("2026-01-08", "stream");
    expect(body).toEqual({
      stream_count: streams,
      stream_percentage: Math.round(((streams - previous) / previous) * 10_000) / 100,
      download_count: sum("2026-01-15", "download"),
      download_percentage: expect.any(Number),
    });
    expect(body).toEqual(sandbox.data.trendTotals("2026-01-15", "2026-01-21", "dsp"));
  });

  it("has no sales outside the data range", async () => {
    const body = await ok(sandbox, "/api/v1/getTrendsTotal", {
      body: { selection_type: "label", start_date: "2025-06-01", end_date: "2025-06-30" },
    });
    expect(body).toEqual({
      stream_count: 0,
      stream_percentage: 0,
      download_count: 0,
      download_percentage: 0,
    });
    const list = await ok(sandbox, "/api/v1/getTrendsList", {
      body: listBody("label", {
        start_date: "2026-03-01T00:00:00",
        end_date: "2026-03-05T00:00:00",
      }),
    });
    expect(list).toEqual([]);
  });

  it("answers the chart: a Total series and the top 5, one integer per day", async () => {
    const chart = await ok<TrendChart>(sandbox, "/api/v1/getTrendsChart", {
      body: listBody("territory", {
        start_date: "2025-12-30T00:00:00",
        end_date: "2026-01-04T00:00:00",
      }),
    });
    const list = sandbox.data.trendList("2025-12-30", "2026-01-04", "territory", "stream");
    expect(chart.groups).toEqual(["Total", ...list.slice(0, 5).map((item) => item.name)]);
    expect(chart.data.map((series) => series.name)).toEqual(chart.groups);
    const range = days("2025-12-30", 6);
    const dayTotals = range.map((day) =>
      sandbox.data
        .trendItems(day, "territory", "stream")
        .reduce((sum, item) => sum + item.count, 0),
    );
    expect(chart.data[0]?.totals).toEqual(dayTotals);
    expect(dayTotals.slice(0, 2)).toEqual([0, 0]);
    const top = list[0];
    const topSeries = range.map(
      (day) =>
        sandbox.data.trendItems(day, "territory", "stream").find((item) => item.id === top?.id)
          ?.count ?? 0,
    );
    expect(chart.data[1]?.totals).toEqual(topSeries);
    expect(chart).toEqual(
      sandbox.data.trendChart("2025-12-30", "2026-01-04", "territory", "stream"),
    );
  });

  it("can answer the list as an object carrying the totals fields", async () => {
    sandbox.setKnobs({ listShape: "object" });
    try {
      const body = await ok<Record<string, unknown>>(sandbox, "/api/v1/getTrendsList", {
        body: listBody("dsp", { size: 5 }),
      });
      expect(body).toEqual({
        ...sandbox.data.trendTotals("2026-01-05", "2026-01-11", "dsp"),
        data: sandbox.data.trendList("2026-01-05", "2026-01-11", "dsp", "stream").slice(0, 5),
      });
    } finally {
      sandbox.setKnobs({ listShape: "array" });
    }
  });

  it("serves late data set through setTrendCount, and 0 removes an entity from a day", async () => {
    const late = await startSandbox({ today: "2026-02-15" });
    try {
      const [item, gone] = late.data.trendItems("2026-01-07", "product", "stream");
      if (!item || !gone) throw new Error("no sales on the day");
      late.data.setTrendCount("2026-01-07", "product", "stream", item.id, item.count + 1000);
      late.data.setTrendCount("2026-01-07", "product", "stream", gone.id, 0);
      const body = {
        ...listBody("product"),
        start_date: "2026-01-07T00:00:00",
        end_date: "2026-01-07T00:00:00",
        size: 500,
      };
      const list = await ok<TrendListItem[]>(late, "/api/v1/getTrendsList", { body });
      expect(list.find((row) => row.id === item.id)?.count).toBe(item.count + 1000);
      expect(list.find((row) => row.id === gone.id)).toBeUndefined();
      late.data.setTrendCount("2025-06-01", "territory", "download", "FR", 7);
      const outside = await ok(late, "/api/v1/getTrendsList", {
        body: listBody("territory", {
          sale_type: "download",
          start_date: "2025-06-01T00:00:00",
          end_date: "2025-06-01T00:00:00",
        }),
      });
      expect(outside).toEqual([{ id: "FR", name: "France", count: 7, percentage: 100 }]);
      expect(() => late.data.setTrendCount("2026-01-07", "product", "stream", -1, 5)).toThrow();
    } finally {
      await late.close();
    }
  });

  it.each([
    [
      "an unknown selection_type",
      "/api/v1/getTrendsList",
      listBody("dsp", { selection_type: "album" }),
      "selection_type",
    ],
    [
      "an unknown sale_type",
      "/api/v1/getTrendsList",
      listBody("dsp", { sale_type: "rental" }),
      "sale_type",
    ],
    [
      "a missing sale_type",
      "/api/v1/getTrendsChart",
      listBody("dsp", { sale_type: undefined }),
      "sale_type",
    ],
    [
      "a date without time on the list",
      "/api/v1/getTrendsList",
      listBody("dsp", { start_date: "2026-01-05" }),
      "start_date",
    ],
    [
      "a date-time on totals",
      "/api/v1/getTrendsTotal",
      { selection_type: "dsp", start_date: "2026-01-05T00:00:00", end_date: "2026-01-06" },
      "start_date",
    ],
    [
      "an impossible date",
      "/api/v1/getTrendsTotal",
      { selection_type: "dsp", start_date: "2026-02-30", end_date: "2026-03-01" },
      "start_date",
    ],
    [
      "an end before the start",
      "/api/v1/getTrendsTotal",
      { selection_type: "dsp", start_date: "2026-01-06", end_date: "2026-01-05" },
      "end_date",
    ],
    ["a size above 500", "/api/v1/getTrendsList", listBody("dsp", { size: 501 }), "size"],
    ["a non-numeric offset", "/api/v1/getTrendsList", listBody("dsp", { offset: "ten" }), "offset"],
    [
      "a filter of the wrong type",
      "/api/v1/getTrendsList",
      listBody("dsp", { product_id: true }),
      "product_id",
    ],
    [
      "asset_ids that is not an object",
      "/api/v1/getTrendsChart",
      listBody("dsp", { asset_ids: [1, 2] }),
      "asset_ids",
    ],
  ])("answers 422 to %s", async (_, path, body, field) => {
    const result = await call(sandbox, path, { body });
    expect(result.status).toBe(422);
    expect(result.json).toMatchObject({
      message: expect.any(String),
      errors: { [field]: [expect.any(String)] },
    });
  });

  it("accepts filters as strings or numbers and ignores them", async () => {
    const filtered = await ok(sandbox, "/api/v1/getTrendsList", {
      body: listBody("dsp", {
        product_id: 123,
        artist_id: "9",
        asset_ids: { a: 1 },
        territory_id: "FR",
      }),
    });
    expect(filtered).toEqual(await ok(sandbox, "/api/v1/getTrendsList", { body: listBody("dsp") }));
  });

  it("reads a missing body as empty (422) and refuses a body that is not JSON (400)", async () => {
    const empty = await call(sandbox, "/api/v1/getTrendsTotal");
    expect(empty.status).toBe(422);
    expect(empty.json).toMatchObject({ errors: { selection_type: [expect.any(String)] } });
    const malformed = await call(sandbox, "/api/v1/getTrendsTotal", { rawBody: "{not json" });
    expect(malformed.status).toBe(400);
    expect(malformed.json).toEqual({ message: "Malformed JSON body" });
  });
});
