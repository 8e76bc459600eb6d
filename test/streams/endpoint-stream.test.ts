import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { Answer } from "../../src/api/api-client.js";
import { defineOperation } from "../../src/api/operation.js";
import { toRecordList, toObjectAnswer } from "../../src/api/results.js";
import { toInteger, toText } from "../../src/api/read-values.js";
import { asRecord } from "../../src/json/json-record.js";
import { endpointStream } from "../../src/streams/endpoint-stream.js";
import { PageSizes } from "../../src/streams/page-sizes.js";
import { NO_PAGING, offsetPaging } from "../../src/streams/paging.js";
import type { Partition, ReadContext } from "../../src/streams/partition.js";
import type { PartitionSet } from "../../src/streams/partition-set.js";
import type { FetchContext, PageFetch, PlanContext, Stream } from "../../src/streams/stream.js";

/** An artist on a day: the scope every row of the partition carries. */
interface ArtistDay extends Partition {
  readonly artistId: number;
  readonly day: string;
}

const ARTIST_DAYS: PartitionSet<ArtistDay> = {
  plan: () => [{ key: "7|2026-01-05", artistId: 7, day: "2026-01-05" }],
  after: ["artist_stats_artists"],
  scope: ({ artistId, day }) => ({ artist_id: artistId, snapshot_date: day }),
  daily: true,
};
const partition: ArtistDay = { key: "7|2026-01-05", artistId: 7, day: "2026-01-05" };

const listOperation = defineOperation({
  name: "test.list",
  params: z.object({ artist_id: z.number(), offset: z.number(), limit: z.number() }),
  request: (query) => ({ method: "GET", path: "/list", query }),
  parse: toRecordList,
});

const objectOperation = defineOperation({
  name: "test.object",
  params: z.object({ artist_id: z.number() }),
  request: (query) => ({ method: "GET", path: "/object", query }),
  parse: toObjectAnswer,
});

/** Answers under `other`: a stream reading it with the wrong operation finds nothing. */
const otherObjectOperation = defineOperation({
  name: "test.other",
  params: z.object({ artist_id: z.number() }),
  request: (query) => ({ method: "GET", path: "/other", query }),
  parse: (body: unknown) => ({ data: asRecord(body)?.other, raw: body }),
});

const context: ReadContext = {
  today: "2026-01-06",
  position: 0,
  ownsLink: () => true,
  pageSizes: new PageSizes(),
};

const answer = (operation: string, body: unknown): Answer => ({
  operation,
  params: {},
  status: 200,
  body,
  bytes: Buffer.from(JSON.stringify(body)),
});

/** The rows every output of `stream` makes of one page's body, table by table. */
function rowsOf(stream: Stream, operation: string, body: unknown, of: ArtistDay = partition) {
  const page = stream.read([answer(operation, body)], of, context);
  return {
    page,
    tables: stream.outputs.map((output) => ({
      table: output.target.table,
      rows: page.records.flatMap((record, position) =>
        output.rows(record, of, position, context.today),
      ),
    })),
  };
}

/** What `fetch` asks for the page whose paging parameters are `params`. */
async function asked(stream: Stream, params: object, of: ArtistDay = partition) {
  const calls: { operation: string; params: object }[] = [];
  const page: PageFetch<object> = {
    params,
    send: (operation, own) => {
      calls.push({ operation: operation.name, params: { ...own, ...params } });
      return Promise.resolve(answer(operation.name, null));
    },
  };
  await stream.fetch({} as FetchContext, of, page);
  return calls;
}

const placements = endpointStream({
  name: "test_placements",
  family: "artist_stats",
  partitions: ARTIST_DAYS,
  operation: listOperation,
  params: ({ artistId }) => ({ artist_id: artistId }),
  paging: offsetPaging(listOperation.name, 2, "limit"),
  records: "list",
  table: "artist_stats.test_placements",
  key: ["artist_id", "snapshot_date", "position"],
  mode: "replace",
  columns: (entry, { position, today }) => ({
    position,
    name: toText(entry.name),
    plays: toInteger(entry.plays),
    seen_on: today,
  }),
  nested: [
    {
      table: "artist_stats.test_tracks",
      key: ["isrc"],
      records: (entry) => (Array.isArray(entry.tracks) ? entry.tracks : []),
      columns: (track, entry) => ({ isrc: toText(track.isrc), placement: toText(entry.name) }),
    },
  ],
});

describe("an endpoint's declaration", () => {
  it("becomes a stream with its partition set's plan, dependencies, days and scope", async () => {
    expect(placements.name).toBe("test_placements");
    expect(placements.after).toEqual(["artist_stats_artists"]);
    expect(placements.daily).toBe(true);
    expect(await placements.partitions({} as PlanContext)).toEqual([partition]);
    const output = placements.outputs[0];
    expect(output?.mode).toBe("replace");
    expect(output && "scope" in output ? output.scope(partition) : null).toEqual({
      artist_id: 7,
      snapshot_date: "2026-01-05",
    });
    expect(placements.outputs.map((o) => o.target)).toEqual([
      { table: "artist_stats.test_placements", key: ["artist_id", "snapshot_date", "position"] },
      { table: "artist_stats.test_tracks", key: ["isrc"] },
    ]);
  });

  it("asks its operation with the partition's parameters and the page's", async () => {
    expect(await asked(placements, { offset: 4, limit: 2 })).toEqual([
      { operation: "test.list", params: { artist_id: 7, offset: 4, limit: 2 } },
    ]);
    expect(placements.paging.style).toBe("offset/limit");
    // A paged list's requests are not known before it is read.
    expect(placements.requests).toBeUndefined();
  });

  it("maps each record once into a row with the scope's columns and the record as raw", () => {
    const first = { name: "A", plays: "12", tracks: [{ isrc: "X1" }, { isrc: "X2" }] };
    const { tables } = rowsOf(placements, "test.list", { data: [first, { name: "B" }] });
    expect(tables[0]?.rows).toEqual([
      {
        artist_id: 7,
        snapshot_date: "2026-01-05",
        position: 0,
        name: "A",
        plays: 12,
        seen_on: "2026-01-06",
        raw: first,
      },
      {
        artist_id: 7,
        snapshot_date: "2026-01-05",
        position: 1,
        name: "B",
        plays: null,
        seen_on: "2026-01-06",
        raw: { name: "B" },
      },
    ]);
    expect(tables[1]?.rows).toEqual([
      {
        artist_id: 7,
        snapshot_date: "2026-01-05",
        isrc: "X1",
        placement: "A",
        raw: { isrc: "X1" },
      },
      {
        artist_id: 7,
        snapshot_date: "2026-01-05",
        isrc: "X2",
        placement: "A",
        raw: { isrc: "X2" },
      },
    ]);
  });

  it("quarantines a list's items that are no record, and says what the list leaves uncertain", () => {
    const { page } = rowsOf(placements, "test.list", { data: [{ name: "A" }, 5], total: 9 });
    expect(page.records).toEqual([{ name: "A" }]);
    expect(page.rejected).toEqual([{ item: 5, reason: "list item is not an object" }]);
    expect(page.list?.total).toBe(9);
    const none = rowsOf(placements, "test.list", { artist: { name: "A" } }).page;
    expect(none.records).toEqual([]);
    expect(none.warnings?.map((w) => w.kind)).toEqual(["no_list"]);
  });

  const audience = endpointStream({
    name: "test_audience",
    family: "artist_stats",
    partitions: ARTIST_DAYS,
    operation: ({ artistId }: ArtistDay) => (artistId > 5 ? objectOperation : otherObjectOperation),
    params: ({ artistId }) => ({ artist_id: artistId }),
    records: "object",
    table: "artist_stats.test_audience",
    key: ["artist_id", "snapshot_date", "element"],
    mode: "snapshot",
    columns: (audience, { position }) => ({ element: position, followers: toInteger(audience.n) }),
  });

  it("reads an object answer as one record, or one per element of a list, and nothing as none", () => {
    const rows = (body: unknown) => rowsOf(audience, "test.object", body).tables[0]?.rows;
    expect(rows({ obj: { n: 3 } })).toEqual([
      { artist_id: 7, snapshot_date: "2026-01-05", element: 0, followers: 3, raw: { n: 3 } },
    ]);
    expect(rows({ obj: [{ n: 1 }, { n: 2 }] })?.map((row) => row.element)).toEqual([0, 1]);
    expect(rows({ obj: [] })).toEqual([]);
    expect(rowsOf(audience, "test.object", { obj: "text" }).page.rejected).toEqual([
      { item: "text", reason: "not an object, where an object answer was expected" },
    ]);
  });

  it("asks and reads the operation its partition chooses, one request a partition when unpaged", async () => {
    const three: ArtistDay = { key: "3|2026-01-05", artistId: 3, day: "2026-01-05" };
    expect(await asked(audience, {})).toEqual([
      { operation: "test.object", params: { artist_id: 7 } },
    ]);
    expect(await asked(audience, {}, three)).toEqual([
      { operation: "test.other", params: { artist_id: 3 } },
    ]);
    const body = { obj: { n: 1 }, other: { n: 2 } };
    expect(rowsOf(audience, "test.object", body).tables[0]?.rows.map((r) => r.followers)).toEqual([
      1,
    ]);
    expect(
      rowsOf(audience, "test.other", body, three).tables[0]?.rows.map((r) => r.followers),
    ).toEqual([2]);
    expect(audience.paging).toBe(NO_PAGING);
    expect(audience.requests?.(partition)).toBe(1);
  });

  it("takes records a selector makes, keeping what `raw` says of each", () => {
    const points = endpointStream({
      name: "test_points",
      family: "artist_stats",
      partitions: ARTIST_DAYS,
      operation: objectOperation,
      params: ({ artistId }) => ({ artist_id: artistId }),
      records: ({ data }) => ({
        records: (Array.isArray(data) ? data : []).map((pair: unknown, step) => ({ pair, step })),
      }),
      raw: ({ pair }) => pair,
      table: "artist_stats.test_points",
      key: ["artist_id", "step"],
      mode: { replaceWithin: ["step"] },
      columns: ({ pair, step }) => ({ step, value: toInteger((pair as unknown[])[1]) }),
    });
    const { tables } = rowsOf(points, "test.object", [["t", 4]]);
    expect(tables[0]?.rows).toEqual([
      { artist_id: 7, snapshot_date: "2026-01-05", step: 0, value: 4, raw: ["t", 4] },
    ]);
    expect(points.outputs[0]).toMatchObject({ mode: "replace", replaceWithin: ["step"] });
  });

  it("passes a declared request count and checkpoint on, and lets a column stand for the scope's", () => {
    const WHOLE: PartitionSet<ArtistDay> = {
      plan: () => [partition],
      scope: ({ day }) => ({ day }),
    };
    const series = endpointStream({
      name: "test_series",
      family: "artist_stats",
      partitions: WHOLE,
      operation: objectOperation,
      params: ({ artistId }) => ({ artist_id: artistId }),
      records: "object",
      requests: () => 3,
      checkpoint: ({ day }) => ({ until: day }),
      table: "artist_stats.test_series",
      key: ["day"],
      mode: "upsert",
      columns: (point, { partition: { day } }) => ({ day: `${day}+${String(point.step)}` }),
    });
    expect(series.after).toBeUndefined();
    expect(series.daily).toBeUndefined();
    expect(series.requests?.(partition)).toBe(3);
    expect(series.checkpoint?.(partition)).toEqual({ until: "2026-01-05" });
    expect(rowsOf(series, "test.object", { obj: { step: 2 } }).tables[0]?.rows).toEqual([
      { day: "2026-01-05+2", raw: { step: 2 } },
    ]);
  });

  it("refuses a replace or a snapshot over partitions that own no rows", () => {
    const LOOKUPS: PartitionSet<ArtistDay> = {
      plan: () => [partition],
      scope: () => ({}),
      sharesTable: true,
    };
    const declare = (mode: "upsert" | "replace" | "snapshot") =>
      endpointStream({
        name: "test_lookups",
        family: "catalogue",
        partitions: LOOKUPS,
        operation: objectOperation,
        params: ({ artistId }) => ({ artist_id: artistId }),
        records: "object",
        table: "catalogue.test",
        key: ["id"],
        mode,
        columns: (record) => ({ id: toInteger(record.id) }),
      });
    expect(declare("upsert").outputs[0]?.mode).toBe("upsert");
    expect(() => declare("replace")).toThrow(/only an upsert may write them/);
    expect(() => declare("snapshot")).toThrow(/only an upsert may write them/);
  });

  it("does not compile when its operation cannot carry the paging, or its answer is no list", () => {
    const declared = [
      endpointStream({
        name: "test_unpageable",
        family: "artist_stats",
        partitions: ARTIST_DAYS,
        // @ts-expect-error the operation takes no offset or limit: the list could not be paged
        operation: objectOperation,
        params: ({ artistId }) => ({ artist_id: artistId }),
        paging: offsetPaging(objectOperation.name, 10, "limit"),
        records: "object",
        table: "artist_stats.test",
        key: ["artist_id"],
        mode: "upsert",
        columns: () => ({}),
      }),
      endpointStream({
        name: "test_not_a_list",
        family: "artist_stats",
        partitions: ARTIST_DAYS,
        operation: objectOperation,
        params: ({ artistId }) => ({ artist_id: artistId }),
        // @ts-expect-error an object answer has no list to read
        records: "list",
        table: "artist_stats.test",
        key: ["artist_id"],
        mode: "upsert",
        columns: () => ({}),
      }),
    ];
    expect(declared.map((stream) => stream.name)).toEqual(["test_unpageable", "test_not_a_list"]);
  });
});
