import { describe, expect, it } from "vitest";
import { SandboxDataset } from "../../sandbox/dataset/dataset.js";
import { startSandbox } from "../../sandbox/index.js";
import { resolveSize } from "../../sandbox/size.js";
import { call } from "./call.js";

// The sandbox is the fixture every end-to-end test and the bench run against: at the size of a
// large account's year it must answer every kind of request, whole and right. A pathological path
// (a quadratic list would take minutes) meets the suite's hang limit; how fast it answers is the
// bench's to measure, not a test's.
describe("sandbox at scale", () => {
  it("answers with a year of data and 5000 products, a full-year list and chart included", async () => {
    const sandbox = await startSandbox({
      today: "2027-01-15",
      size: { days: 365, products: 5000 },
    });
    try {
      const ok = async <T = Record<string, unknown>>(path: string, body?: unknown) => {
        const result = await call(sandbox, path, { body });
        expect(result.status, result.text.slice(0, 200)).toBe(200);
        return result.json as T;
      };
      const lookup = await ok("/api/v1/getproductByupc/12?page_size=100");
      expect((lookup.product as unknown[]).length).toBe(Math.min(100, Number(lookup.total)));
      const list = {
        selection_type: "asset",
        sale_type: "stream",
        start_date: "2026-01-01T00:00:00",
        end_date: "2026-12-31T00:00:00",
        offset: 1000,
        size: 500,
      };
      expect(await ok<unknown[]>("/api/v1/getTrendsList", list)).toHaveLength(500);
      const chart = await ok<{ data: { totals: unknown[] }[] }>("/api/v1/getTrendsChart", list);
      expect(chart.data[0]?.totals).toHaveLength(365);
      const totals = await ok("/api/v1/getTrendsTotal", {
        selection_type: "product",
        start_date: "2026-01-01",
        end_date: "2026-12-31",
      });
      expect(Number(totals.stream_count)).toBeGreaterThan(0);
      const cm = sandbox.data.socialArtists()[0]?.cm_artist;
      await ok(`/api/v1/artist-stats/stat/social_1?artist_id=${cm}&since=2026-01-16`);
      await ok("/api/v1/artist-stats/charts?limit=200");
      expect(sandbox.data.products()).toHaveLength(5000);
    } finally {
      await sandbox.close();
    }
  });

  it("caps a day's trends list at trendItemsCap entities, 1000 unless the size says otherwise", () => {
    const sold = (size: { products: number; trendItemsCap?: number }) =>
      new SandboxDataset(1, resolveSize(size), "2026-02-01").trendItems(
        "2026-01-05",
        "product",
        "stream",
      ).length;
    expect(sold({ products: 5000 })).toBe(1000);
    expect(sold({ products: 50_000, trendItemsCap: 10_000 })).toBe(10_000);
    expect(sold({ products: 50_000, trendItemsCap: 100_000 })).toBeGreaterThan(10_000);
  });
});
