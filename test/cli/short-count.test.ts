import { describe, expect, it } from "vitest";
import { shortCount } from "../../src/cli/short-count.js";

describe("shortCount", () => {
  it("writes a count below a thousand as it is", () => {
    expect([0, 7, 999].map(shortCount)).toEqual(["0", "7", "999"]);
  });

  it("shortens a larger count to four characters at most, never rounding it up", () => {
    const counts = [1000, 1234, 1999, 9999, 10_000, 12_345, 999_999, 1_000_000, 1_250_000];
    expect(counts.map(shortCount)).toEqual([
      "1k",
      "1.2k",
      "1.9k",
      "9.9k",
      "10k",
      "12k",
      "999k",
      "1M",
      "1.2M",
    ]);
    expect([45_678_901, 2_500_000_000].map(shortCount)).toEqual(["45M", "2.5G"]);
  });
});
