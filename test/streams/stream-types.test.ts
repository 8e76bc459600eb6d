import { describe, expect, it } from "vitest";
import {
  type OffsetCursor,
  type OffsetParams,
  offsetPaging,
  pageNumberPaging,
  pagingByPartition,
  windowPaging,
} from "../../src/streams/paging.js";
import { defineStream, type TableOutput } from "../../src/streams/stream.js";
import { type Partition } from "../../src/streams/partition.js";
import { chartsOperation } from "../../src/streams/artist-stats/chart-entries.js";
import { cmStatsOperation } from "../../src/streams/artist-stats/cm-stats.js";

// Checked by `tsc --noEmit` (the first half of `npm test`): each @ts-expect-error fails the build
// if the declaration it marks ever compiles.
const target = { table: "sales.example", key: ["day"], columns: ["value"] };
const rows = () => [];

describe("a stream's output", () => {
  it("cannot be a replace or a snapshot without saying what it replaces", () => {
    const declared: TableOutput<Partition, unknown>[] = [
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
  it("asks offset pages by the parameter names the style says", () => {
    const partition = { key: "all" };
    expect(offsetPaging("op", 50, "limit").request(null, partition)?.params).toEqual({
      offset: 0,
      limit: 50,
    });
    expect(
      offsetPaging("op", 100, "size").request({ offset: 200, probe: 3 }, partition)?.params,
    ).toEqual({
      offset: 200,
      size: 100,
    });
  });

  it("is what a stream's cursor and its request's paging parameters are, or it does not compile", () => {
    const byOffset = offsetPaging(chartsOperation.name, 200, "limit");
    const byWindow = windowPaging(365);
    const declaration = {
      family: "artist_stats" as const,
      partitions: () => [],
      read: () => ({ records: [] }),
      outputs: [],
    };
    const declared = [
      defineStream<Partition, never, typeof byOffset>({
        ...declaration,
        name: "by_offset",
        paging: byOffset,
        fetch: async (_context, _partition, page) => [
          await page.send(chartsOperation, { genre: "All Genres" }),
        ],
      }),
      defineStream<Partition, never>({
        ...declaration,
        name: "declared_unpaged",
        // @ts-expect-error a stream declared unpaged cannot page
        paging: byOffset,
        fetch: () => Promise.resolve([]),
      }),
      defineStream<Partition, never, typeof byOffset>({
        ...declaration,
        name: "declared_by_offset",
        // @ts-expect-error nor can a stream whose cursor is an offset page by number
        paging: pageNumberPaging(100),
        fetch: () => Promise.resolve([]),
      }),
      defineStream<Partition, never, typeof byOffset>({
        ...declaration,
        name: "request_unpaged",
        paging: byOffset,
        fetch: async (_context, _partition, page) => [
          // @ts-expect-error a request whose operation takes no offset and limit cannot be paged
          await page.send(cmStatsOperation, { artist_id: 1 }),
        ],
      }),
      defineStream<Partition, never, typeof byWindow>({
        ...declaration,
        name: "windows_of_nothing",
        // @ts-expect-error windows need partitions that have a since and an until
        paging: byWindow,
        fetch: () => Promise.resolve([]),
      }),
    ];
    const apart = pagingByPartition<Partition, string, OffsetCursor, OffsetParams<"limit">>(
      (partition) => partition.key,
      {
        editorial: byOffset,
        // @ts-expect-error partitions that page apart still page in one style
        curator: pageNumberPaging(100),
      },
    );
    expect([...declared.map((stream) => stream.paging.style), apart.style]).toEqual([
      "offset/limit",
      "offset/limit",
      "page number",
      "offset/limit",
      "windows",
      "offset/limit",
    ]);
  });
});
