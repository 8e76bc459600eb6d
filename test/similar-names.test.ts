import { describe, expect, it } from "vitest";
import { didYouMean } from "../src/similar-names.js";

describe("did you mean", () => {
  it("names the nearest known names, and nothing when none is near", () => {
    const known = ["trends", "trend_items", "lookback_days", "lookback", "artist_stats"];
    expect(didYouMean("trend", known)).toBe(' (did you mean "trends"?)');
    expect(didYouMean("lookback_dayz", known)).toBe(' (did you mean "lookback_days"?)');
    expect(didYouMean("trnd_items", known)).toBe(' (did you mean "trend_items"?)');
    expect(didYouMean("artsit_stats", known)).toBe(' (did you mean "artist_stats"?)');
    expect(didYouMean("Trends", known)).toBe(' (did you mean "trends"?)');
    expect(didYouMean("ab", ["ac", "bb", "zz"])).toBe(' (did you mean "ac" or "bb"?)');
    expect(didYouMean("royalty_statements", known)).toBe("");
    expect(didYouMean("x", known)).toBe("");
  });
});
