import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Answer } from "../../src/api/api-client.js";
import { collectUntyped, type UntypedValue } from "../../src/api/untyped-values.js";
import { type EtlConfig, etlConfigSchema } from "../../src/config/etl-config-schema.js";
import { PagingError } from "../../src/errors.js";
import { radio } from "../../src/streams/artist-stats/radio.js";
import { products } from "../../src/streams/catalogue/products.js";
import type { LookupPartition } from "../../src/streams/catalogue/lookups.js";
import type { Partition } from "../../src/streams/partition.js";
import type { Stream } from "../../src/streams/stream.js";
import { PageSizes } from "../../src/streams/page-sizes.js";
import { PartitionLoad } from "../../src/runner/load/partition-load.js";
import { PhaseTimer } from "../../src/runner/phase-timer.js";
import { landPages } from "../../src/runner/extract/sync-partition.js";
import { startAttempt } from "../../src/warehouse/attempts.js";
import { createTestWarehouse, type TestWarehouse } from "../helpers/warehouse.js";

// The load stage of one partition on its own, against the real Postgres: pages of a radio day
// (replace mode, rows keyed by their position) read, written a batch at a time, and closed.

const TODAY = "2026-01-31";
const DAY = "2026-01-05";
const partition = { key: `${DAY}|7`, day: DAY, artistId: 7 };
/** Two rows a batch: a page of five is written within the page, in two batches and a rest. */
const config = etlConfigSchema.parse({ start_date: "2026-01-01", write_batch_rows: 2 });
let warehouse: TestWarehouse;

beforeAll(async () => {
  warehouse = await createTestWarehouse("partition_load");
});
afterAll(() => warehouse.drop());
beforeEach(async () => {
  await warehouse.query(
    `truncate artist_stats.radio, catalogue.products, catalogue.assets,
       etl.attempts, etl.responses, etl.rejected_records, etl.stream_state`,
  );
});

const spin = (station: string, spins: unknown = 3) => ({ station_name: station, spins });

function answer(body: unknown): Answer {
  return {
    operation: "artistStats.radio",
    params: { artist_id: 7, date: DAY },
    status: 200,
    body,
    bytes: Buffer.from(JSON.stringify(body)),
  };
}

/** A load of a partition (the radio day unless said), in an attempt of its own. */
async function load(
  stream: Stream = radio,
  of: Partition = partition,
  settings: EtlConfig = config,
): Promise<{ load: PartitionLoad; noted: UntypedValue[] }> {
  const { attemptId, firstAttempt } = await startAttempt(warehouse.db, stream.name, of.key);
  const noted: UntypedValue[] = [];
  const partitionLoad = new PartitionLoad({
    db: warehouse.db,
    stream,
    partition: of,
    attemptId,
    config: settings,
    today: TODAY,
    ownsLink: () => true,
    pageSizes: new PageSizes(),
    expectNew: firstAttempt,
    quarantine: "replace",
    noted,
    timer: new PhaseTimer(),
    checkpoint: true,
    land: landPages(stream, of, firstAttempt),
  });
  return { load: partitionLoad, noted };
}

const stations = () =>
  warehouse
    .query<{ station_name: string }>(
      "select station_name from artist_stats.radio order by artist_id desc, position",
    )
    .then((rows) => rows.map((row) => row.station_name));

describe("a partition's load", () => {
  it("writes a page a batch at a time, with its response, and closes the partition once", async () => {
    const { load: partitionLoad } = await load();
    const five = ["a", "b", "c", "d", "e"].map((station) => spin(station));
    await partitionLoad.page(null, [answer({ obj: five })]);
    // Two full batches are written before the partition ends; the rest waits for its close.
    expect(await stations()).toEqual(["a", "b", "c", "d"]);
    expect(await warehouse.query("select 1 from etl.responses")).toHaveLength(1);
    expect(await warehouse.query("select 1 from etl.stream_state")).toEqual([]);
    await partitionLoad.finish({ requests: 1 });
    expect(await stations()).toEqual(["a", "b", "c", "d", "e"]);
    expect(partitionLoad.account.rowsWritten).toBe(5);
    expect(
      await warehouse.query("select status, rows_written::int, requests::int from etl.attempts"),
    ).toEqual([{ status: "succeeded", rows_written: 5, requests: 1 }]);
    expect(await warehouse.query("select last_status from etl.stream_state")).toEqual([
      { last_status: "succeeded" },
    ]);
  });

  it("replaces the partition's rows: what the upstream no longer returns is deleted", async () => {
    // Another artist's row of the same day: outside the partition, it stays.
    await warehouse.query(
      `insert into artist_stats.radio (artist_id, snapshot_date, position, station_name, raw)
       values (8, $1, 0, 'other', '{}')`,
      [DAY],
    );
    const first = await load();
    await first.load.page(null, [answer({ obj: [spin("a"), spin("b"), spin("c")] })]);
    await first.load.finish({ requests: 1 });
    const second = await load();
    await second.load.page(null, [answer({ obj: [spin("x")] })]);
    await second.load.finish({ requests: 1 });
    expect(await stations()).toEqual(["other", "x"]);
  });

  it("quarantines what it cannot store, with the response it came in, and warns of the rest", async () => {
    const { load: partitionLoad, noted } = await load();
    // The readers note what they cannot type where the runner collects it: in `noted`.
    const read = await collectUntyped(noted, async () => {
      const page = await partitionLoad.page(null, [
        answer({ obj: [spin("a", "many"), "not a record", { unknown_field: 1 }], total: 9 }),
      ]);
      await partitionLoad.finish({ requests: 1 });
      return page;
    });
    const rejected = await warehouse.query<{ reason: string; has_response: boolean }>(
      "select reason, response_id is not null as has_response from etl.rejected_records",
    );
    expect(rejected).toEqual([{ reason: "list item is not an object", has_response: true }]);
    expect(partitionLoad.account.rowsRejected).toBe(1);
    // The list says it holds more: the page read says so to the paging, which decides where the
    // list goes on (the extract loop's business, not the load's, which warns of nothing here).
    expect(read.list?.total).toBe(9);
    expect(partitionLoad.account.warnings).toEqual([]);
    // A value of a field the spec does not show is typed as sent (spins as text: "many"), and a
    // field no column held became one.
    expect(
      await warehouse.query(
        "select spins, raw->>'spins' as raw_spins, unknown_field from artist_stats.radio",
      ),
    ).toEqual([
      { spins: "many", raw_spins: "many", unknown_field: null },
      { spins: null, raw_spins: null, unknown_field: "1" },
    ]);
  });

  it("under a frozen contract, keeps a field no column holds in raw and warns of it by name", async () => {
    const upc: LookupPartition = { key: "upc:1", value: "1" };
    const frozen = etlConfigSchema.parse({
      start_date: "2026-01-01",
      schema_contract: { products: "freeze" },
    });
    const { load: partitionLoad } = await load(products, upc, frozen);
    await partitionLoad.page(null, [
      answer({
        product: [
          // Read by the assets' table alone: nothing new.
          { id: 1, assets: [{ id: 10, isrc: "X1" }] },
          { id: 2, renamed_title: "T", renamed_label: "L" },
        ],
      }),
    ]);
    await partitionLoad.finish({ requests: 1 });
    expect(partitionLoad.account.warnings.map((warning) => warning.message)).toEqual([
      'catalogue.products: new field renamed_title kept in raw (schema_contract "freeze")',
      'catalogue.products: new field renamed_label kept in raw (schema_contract "freeze")',
    ]);
    expect(
      await warehouse.query("select product_id::int from catalogue.products order by 1"),
    ).toEqual([{ product_id: 1 }, { product_id: 2 }]);
    expect(
      await warehouse.query(
        "select 1 from information_schema.columns where column_name like 'renamed%'",
      ),
    ).toEqual([]);
  });

  it("under a frozen contract, leaves a column as it is: a value it cannot hold is null, warned of", async () => {
    const product = (id: number, rankHint: unknown) =>
      answer({ product: [{ id, rank_hint: rankHint }] });
    const upc: LookupPartition = { key: "upc:3", value: "3" };
    const evolving = await load(products, upc);
    await evolving.load.page(null, [product(3, 7)]);
    await evolving.load.finish({ requests: 1 });
    const frozen = etlConfigSchema.parse({
      start_date: "2026-01-01",
      schema_contract: { default: "freeze" },
    });
    const { load: partitionLoad } = await load(products, upc, frozen);
    await partitionLoad.page(null, [product(4, "high")]);
    await partitionLoad.finish({ requests: 1 });
    expect(partitionLoad.account.warnings.map((warning) => warning.message)).toEqual([
      "1 values could not be typed: rank_hint (integer)",
    ]);
    expect(
      await warehouse.query(
        `select product_id::int, rank_hint, raw->>'rank_hint' as raw_hint
           from catalogue.products where product_id >= 3 order by 1`,
      ),
    ).toEqual([
      { product_id: 3, rank_hint: "7", raw_hint: "7" },
      { product_id: 4, rank_hint: null, raw_hint: "high" },
    ]);
    expect(
      await warehouse.query(
        "select data_type from information_schema.columns where column_name = 'rank_hint'",
      ),
    ).toEqual([{ data_type: "bigint" }]);
  });

  it("fails a page the upstream serves again instead of paging forever", async () => {
    const { load: partitionLoad } = await load();
    const page = { obj: [spin("a"), spin("b")] };
    await partitionLoad.page(null, [answer(page)]);
    await expect(partitionLoad.page({ offset: 2 }, [answer(page)])).rejects.toBeInstanceOf(
      PagingError,
    );
  });
});
