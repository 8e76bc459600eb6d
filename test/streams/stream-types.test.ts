import { describe, expect, it } from "vitest";
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
