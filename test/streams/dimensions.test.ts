import { describe, expect, it } from "vitest";
import { product } from "../../src/streams/dimensions.js";

describe("partitions as a product of named dimensions", () => {
  it("makes every combination, the last dimension turning fastest, keyed by the values in order", () => {
    expect([
      ...product({ day: ["2026-01-05", "2026-01-06"], selectionType: ["dsp", "asset"] }),
    ]).toEqual([
      { key: "2026-01-05|dsp", day: "2026-01-05", selectionType: "dsp" },
      { key: "2026-01-05|asset", day: "2026-01-05", selectionType: "asset" },
      { key: "2026-01-06|dsp", day: "2026-01-06", selectionType: "dsp" },
      { key: "2026-01-06|asset", day: "2026-01-06", selectionType: "asset" },
    ]);
  });

  it("keeps constant fields out of the key, and makes nothing when a dimension is empty", () => {
    expect([...product({ artistId: [7], kind: ["curator"] }, { status: "current" })]).toEqual([
      { key: "7|curator", artistId: 7, kind: "curator", status: "current" },
    ]);
    expect([...product({ artistId: [7, 8], platform: [] })]).toEqual([]);
  });

  it("makes them one at a time", () => {
    const days = Array.from({ length: 365 }, (_, i) => `d${i}`);
    const artists = Array.from({ length: 2_000 }, (_, i) => i);
    const partitions = product({ day: days, artistId: artists });
    expect(partitions.next().value).toEqual({ key: "d0|0", day: "d0", artistId: 0 });
    let count = 1;
    for (const _ of partitions) count += 1;
    expect(count).toBe(730_000);
  });
});
