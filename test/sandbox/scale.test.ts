import { describe, expect, it } from "vitest";
import { SandboxDataset } from "../../sandbox/dataset/dataset.js";
import { startSandbox } from "../../sandbox/index.js";
import { resolveSize } from "../../sandbox/size.js";
import { call } from "./call.js";

// The sandbox is the fixture every end-to-end test and the bench run against: what is bounded
// here is that it stays lazy and has no pathological path (a quadratic list would take minutes),
// not its speed. Each bound is five times what a two-core machine took with both cores busy
// beside the suite (start 7 ms; a year's trends list 850 ms, its chart 2.1 s; the rest under
// 250 ms), so a slow machine never fails it.
describe("sandbox at scale", () => {
  it("starts fast with a year of data and 5000 products, and answers a full-year list quickly", async () => {
    const started = performance.now();
    const sandbox = await startSandbox({
      today: "2027-01-15",
      size: { days: 365, products: 5000 },
    });
    try {
      expect(performance.now() - started).toBeLessThan(1_000);
      const timed = async (path: string, body?: unknown) => {
        const begin = performance.now();
        const result = await call(sandbox, path, { body });
        expect(result.status, result.text.slice(0, 200)).toBe(200);
        return performance.now() - begin;
      };
      // The first call also builds the catalogue.
      expect(await timed("/api/v1/getproductByupc/12?page_size=100")).toBeLessThan(2_000);
      const list = {
        selection_type: "asset",
        sale_type: "stream",
        start_date: "2026-01-01T00:00:00",
        end_date: "2026-12-31T00:00:00",
        offset: 1000,
        size: 500,
      };
      expect(await timed("/api/v1/getTrendsList", list)).toBeLessThan(10_000);
      expect(await timed("/api/v1/getTrendsChart", list)).toBeLessThan(10_000);
      expect(
        await timed("/api/v1/getTrendsTotal", {
          selection_type: "product",
          start_date: "2026-01-01",
          end_date: "2026-12-31",
        }),
      ).toBeLessThan(2_000);
      const cm = sandbox.data.socialArtists()[0]?.cm_artist;
      expect(
        await timed(`/api/v1/artist-stats/stat/social_1?artist_id=${cm}&since=2026-01-16`),
      ).toBeLessThan(2_000);
      expect(await timed("/api/v1/artist-stats/charts?limit=200")).toBeLessThan(2_000);
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
