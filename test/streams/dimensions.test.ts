import { describe, expect, it } from "vitest";
import { chartDays } from "../../src/streams/artist-stats/chart-entries.js";
import { lookupPartitions } from "../../src/streams/catalogue/lookups.js";
import { compound, product } from "../../src/streams/dimensions.js";

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

  it("puts a compound dimension's fields into each partition, and its own key part into the key", () => {
    const charts = compound(
      [
        { countryCode: "US", genre: "All Genres" },
        { countryCode: "GLOBAL", genre: "Pop" },
      ],
      ({ countryCode, genre }) => `${countryCode}|${genre}`,
    );
    expect([...product({ day: ["2026-01-05"], chart: charts }, { kind: "chart" })]).toEqual([
      {
        key: "2026-01-05|US|All Genres",
        day: "2026-01-05",
        countryCode: "US",
        genre: "All Genres",
        kind: "chart",
      },
      {
        key: "2026-01-05|GLOBAL|Pop",
        day: "2026-01-05",
        countryCode: "GLOBAL",
        genre: "Pop",
        kind: "chart",
      },
    ]);
  });

  it("keys chart days as etl.stream_state has always stored them", () => {
    const charts = [
      { country_code: "US", genre: "All Genres" },
      { country_code: "GB", genre: "Rock" },
    ];
    expect([...chartDays(["2026-01-05", "2026-01-06"], charts)].map((p) => p.key)).toEqual([
      "2026-01-05|US|All Genres",
      "2026-01-05|GB|Rock",
      "2026-01-06|US|All Genres",
      "2026-01-06|GB|Rock",
    ]);
    expect([...chartDays([], charts)]).toEqual([]);
  });

  it("keys look-ups as etl.stream_state has always stored them: <prefix>:<value>", () => {
    expect([...lookupPartitions("upc", ["0600", "12|3", "a:b"])]).toEqual([
      { key: "upc:0600", value: "0600" },
      { key: "upc:12|3", value: "12|3" },
      { key: "upc:a:b", value: "a:b" },
    ]);
    expect([...lookupPartitions("name", ["O'Connor"])].map((p) => p.key)).toEqual([
      "name:O'Connor",
    ]);
    expect([...lookupPartitions("key", [])]).toEqual([]);
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
