import { describe, expect, it } from "vitest";
import { offsetPaging } from "../../src/streams/paging.js";
import { STREAMS } from "../../src/streams/registry.js";
import type { Output, Partition } from "../../src/streams/stream.js";

// Checked by `tsc --noEmit` (the first half of `npm test`): each @ts-expect-error fails the build
// if the declaration it marks ever compiles.
const target = { table: "sales.example", key: ["day"], columns: ["value"] };
const rows = () => [];

describe("a stream's output", () => {
  it("cannot be a replace or a snapshot without saying what it replaces", () => {
    const declared: Output<Partition, unknown>[] = [
      { target, rows, mode: "upsert" },
      { target, rows, mode: "replace", scope: (p) => ({ day: p.day }) },
      { target, rows, mode: "replace", replaceWithin: ["day"] },
      { target, rows, mode: "snapshot", scope: () => ({}) },
      // @ts-expect-error a replace without a scope would keep what the upstream dropped
      { target, rows, mode: "replace" },
      // @ts-expect-error a snapshot without a scope likewise
      { target, rows, mode: "snapshot" },
      // @ts-expect-error replacing within columns is a replace's alone
      { target, rows, mode: "snapshot", replaceWithin: ["day"] },
    ];
    expect(declared.map((output) => output.mode)).toEqual([
      "upsert",
      "replace",
      "replace",
      "snapshot",
      "replace",
      "snapshot",
      "snapshot",
    ]);
  });
});

describe("a stream's paging", () => {
  it("is declared by every stream, one style each", () => {
    const styles = Object.fromEntries(STREAMS.map((stream) => [stream.name, stream.paging.style]));
    expect(styles).toEqual({
      territories: "none",
      dsps: "none",
      products: "page number",
      artists: "page number",
      trend_totals: "none",
      trend_items: "offset/size",
      trend_chart_points: "none",
      artist_stats_artists: "none",
      artist_stats_platform_stats: "windows",
      artist_stats_cm_stats: "none",
      artist_stats_urls: "none",
      artist_stats_audience_stats: "none",
      artist_stats_social_audience_stats: "offset/limit",
      artist_stats_video_market_coverage: "none",
      artist_stats_playlist_placements: "offset/limit",
      artist_stats_radio_airplays: "none",
      artist_stats_radio: "none",
      artist_stats_chart_entries: "offset/limit",
      payouts: "next link",
      pending_payouts: "next link",
      incomes: "next link",
      invoices: "none",
    });
  });

  it("asks offset pages by the parameter names the style says", () => {
    expect(offsetPaging("op", 50, "limit").params(null)).toEqual({ offset: 0, limit: 50 });
    expect(offsetPaging("op", 100, "size").params({ offset: 200, probe: 3 })).toEqual({
      offset: 200,
      size: 100,
    });
  });
});
