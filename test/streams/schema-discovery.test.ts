import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { selectStreams } from "../../src/streams/registry.js";
import { createWarehouse, type Warehouse } from "../../src/warehouse/database.js";
import { failures, startSyncHarness, type SyncHarness } from "../helpers/sync-harness.js";
import { withReaderClient } from "../helpers/reader-client.js";

// A field the declaration does not name becomes a typed column of its table the first time it
// arrives, named as the upstream names it, and every row's value is in it as received.

let harness: SyncHarness;

beforeAll(async () => {
  harness = await startSyncHarness("schema_discovery", {
    today: "2026-01-31",
    etl: { dsp_keys: ["all"], territory_keys: ["all"] },
  });
});

afterAll(() => harness.close());

const db = () => harness.warehouse.db;

async function columns(table: string) {
  const { rows } = await sql<{ column_name: string; field: string[]; data_type: string }>`
    select column_name, field, data_type from etl.discovered_columns
     where table_name = ${table} order by column_name`.execute(db());
  return rows;
}

async function changes() {
  const { rows } = await sql<{ column_name: string; change: string; to_type: string }>`
    select column_name, change, from_type, to_type from etl.schema_changes
     where table_name = 'catalogue.dsps' order by change_id`.execute(db());
  return rows;
}

describe("a field no column holds", () => {
  it("becomes a column the first time it arrives, with every row's value", async () => {
    const before = await harness.sync({ only: ["dsps"] });
    expect(failures(before)).toEqual([]);
    expect(await columns("catalogue.dsps")).toEqual([]);

    harness.upstream.sandbox.setKnobs({ drift: { extraFields: true } });
    const summaries = await harness.sync({ only: ["dsps"] });
    expect(failures(summaries)).toEqual([]);
    expect(summaries.flatMap((s) => s.warned)).toEqual([]);
    expect(summaries.flatMap((s) => s.untyped)).toEqual([]);
    expect(await columns("catalogue.dsps")).toEqual([
      { column_name: "x_flags__beta", field: ["x_flags", "beta"], data_type: "boolean" },
      { column_name: "x_unexpected", field: ["x_unexpected"], data_type: "text" },
    ]);
    const { rows } = await sql<{ n: string; typed: string }>`
      select count(*) as n,
             count(*) filter (where x_unexpected = raw ->> 'x_unexpected'
                                and x_flags__beta = (raw #>> '{x_flags,beta}')::boolean) as typed
        from catalogue.dsps`.execute(db());
    expect(Number(rows[0]?.n)).toBeGreaterThan(0);
    expect(rows[0]?.typed).toBe(rows[0]?.n);
    // In the order the fields arrived.
    expect(await changes()).toEqual([
      expect.objectContaining({ column_name: "x_unexpected", change: "added", to_type: "text" }),
      expect.objectContaining({
        column_name: "x_flags__beta",
        change: "added",
        to_type: "boolean",
      }),
    ]);
  });

  it("is read by the reader role without a grant of its own", async () => {
    await withReaderClient(harness.warehouse, "bi_discovery", async (reader) => {
      const { rows } = await reader.query<{ n: number }>(
        "select count(x_unexpected)::int as n from catalogue.dsps",
      );
      expect(rows[0]?.n).toBeGreaterThan(0);
    });
  });

  it("names the landed response that carried the field", async () => {
    const { rows } = await sql<{ column_name: string; carried: boolean }>`
      select c.column_name, r.body::text like '%' || c.field[1] || '%' as carried
        from etl.schema_changes c join etl.responses r using (response_id)
       where c.table_name = 'catalogue.dsps' order by c.change_id`.execute(db());
    expect(rows).toEqual([
      { column_name: "x_unexpected", carried: true },
      { column_name: "x_flags__beta", carried: true },
    ]);
  });

  it("changes nothing when synced again with no upstream change", async () => {
    const changed = (await changes()).length;
    const summaries = await harness.sync({ only: ["dsps"] });
    expect(summaries.reduce((n, s) => n + s.rowsWritten, 0)).toBe(0);
    expect((await changes()).length).toBe(changed);
  });
});

describe("a field that first arrives on a later day", () => {
  let daily: SyncHarness;

  beforeAll(async () => {
    daily = await startSyncHarness("schema_discovery_daily", { today: "2026-01-31" });
  });

  afterAll(() => daily.close());

  it("gets its column on that day's run, filled where raw has it, and no earlier one makes it", async () => {
    const days = (from: string, to: string) => daily.sync({ only: ["trend_totals"], from, to });
    expect(failures(await days("2026-01-01", "2026-01-02"))).toEqual([]);
    const query = (text: string) => daily.warehouse.query(text);
    expect(await query("select 1 from etl.discovered_columns")).toEqual([]);
    daily.upstream.sandbox.setKnobs({ drift: { extraFields: true } });
    expect(failures(await days("2026-01-03", "2026-01-03"))).toEqual([]);
    expect(
      await query(
        `select column_name, partition from etl.schema_changes
          where table_name = 'sales.trend_totals' order by change_id`,
      ),
    ).toEqual([
      { column_name: "x_unexpected", partition: expect.stringMatching(/^2026-01-03\|/) },
      { column_name: "x_flags__beta", partition: expect.stringMatching(/^2026-01-03\|/) },
    ]);
    expect(
      await query(
        `select day::text, count(*)::int as rows, count(x_unexpected)::int as typed
           from sales.trend_totals group by day order by day`,
      ),
    ).toEqual([
      { day: "2026-01-01", rows: 5, typed: 0 },
      { day: "2026-01-02", rows: 5, typed: 0 },
      { day: "2026-01-03", rows: 5, typed: 5 },
    ]);
  });
});

describe("a warehouse synced before its fields had columns", () => {
  let earlier: SyncHarness;

  beforeAll(async () => {
    // A frozen contract types what the release before discovery typed: the declared columns.
    earlier = await startSyncHarness("schema_discovery_replay", {
      today: "2026-01-31",
      etl: { dsp_keys: ["all"], schema_contract: { default: "freeze" } },
      sandbox: { knobs: { drift: { extraFields: true } } },
    });
  });

  afterAll(() => earlier.close());

  it("gets every discovered column, filled, from a replay with no request; a second changes nothing", async () => {
    expect(failures(await earlier.sync({ only: ["dsps"] }))).toEqual([]);
    const query = (text: string) => earlier.warehouse.query(text);
    expect(await query("select 1 from etl.discovered_columns")).toEqual([]);
    earlier.upstream.sandbox.resetStats();
    const replayed = await earlier.replay(selectStreams(["dsps"]), {}, { schema_contract: {} });
    expect(failures(replayed)).toEqual([]);
    expect(earlier.upstream.sandbox.stats().requests).toBe(0);
    expect(await query("select column_name from etl.discovered_columns order by 1")).toEqual([
      { column_name: "x_flags__beta" },
      { column_name: "x_unexpected" },
    ]);
    expect(
      await query(
        `select count(*)::int as untyped from catalogue.dsps
          where x_unexpected is distinct from raw ->> 'x_unexpected'`,
      ),
    ).toEqual([{ untyped: 0 }]);
    const again = await earlier.replay(selectStreams(["dsps"]), {}, { schema_contract: {} });
    expect(again.reduce((n, s) => n + s.rowsWritten, 0)).toBe(0);
  });
});

describe("a column another worker added", () => {
  let shared: SyncHarness;
  let other: Warehouse;

  beforeAll(async () => {
    shared = await startSyncHarness("schema_discovery_other_worker", {
      today: "2026-01-31",
      etl: { territory_keys: ["all"] },
    });
    other = createWarehouse(shared.warehouse.url, { maxConnections: 2 });
  });

  afterAll(async () => {
    await other.destroy();
    await shared.close();
  });

  it("is written by a worker that had not seen it, as its records say", async () => {
    // The other worker knows the table without the fields' columns.
    expect(failures(await shared.sync({ only: ["territories"], db: other }))).toEqual([]);
    shared.upstream.sandbox.setKnobs({ drift: { extraFields: true } });
    expect(failures(await shared.sync({ only: ["territories"] }))).toEqual([]);
    const typed = () =>
      shared.warehouse.query(
        `select count(*)::int as n,
                count(*) filter (where x_unexpected is not distinct from raw ->> 'x_unexpected')::int
                  as typed
           from catalogue.territories`,
      );
    const [filled] = await typed();
    expect(filled?.n).toBeGreaterThan(0);
    expect(filled?.typed).toBe(filled?.n);
    // The fields leave the records: the other worker's rows must not keep the old values.
    shared.upstream.sandbox.setKnobs({ drift: { extraFields: false } });
    const summaries = await shared.sync({ only: ["territories"], db: other });
    expect(failures(summaries)).toEqual([]);
    expect(summaries.reduce((n, s) => n + s.rowsWritten, 0)).toBe(filled?.n);
    expect(await typed()).toEqual([filled]);
  });
});

describe("a change whose write then fails", () => {
  let failing: SyncHarness;

  beforeAll(async () => {
    failing = await startSyncHarness("schema_discovery_failed_write", {
      today: "2026-01-31",
      etl: { dsp_keys: ["all"] },
      sandbox: { knobs: { drift: { extraFields: true } } },
    });
  });

  afterAll(() => failing.close());

  it("is kept, committed before the write (never holding the table's lock behind one); the next sync fills it", async () => {
    const query = (text: string) => failing.warehouse.query(text);
    await query(`create function pg_temp_refuse() returns trigger language plpgsql as
      $$ begin raise exception 'write refused'; end $$`);
    await query(`create trigger refuse before insert on catalogue.dsps
      for each statement execute function pg_temp_refuse()`);
    const refused = await failing.sync({ only: ["dsps"] });
    expect(failures(refused).length).toBeGreaterThan(0);
    expect(await query("select count(*)::int as n from catalogue.dsps")).toEqual([{ n: 0 }]);
    expect(
      await query("select column_name, response_id from etl.schema_changes order by change_id"),
    ).toEqual([
      { column_name: "x_unexpected", response_id: null },
      { column_name: "x_flags__beta", response_id: null },
    ]);

    await query("drop trigger refuse on catalogue.dsps");
    expect(failures(await failing.sync({ only: ["dsps"] }))).toEqual([]);
    expect(
      await query(
        `select count(*) filter (where x_unexpected is distinct from raw ->> 'x_unexpected')::int
                as untyped, count(*)::int > 0 as some from catalogue.dsps`,
      ),
    ).toEqual([{ untyped: 0, some: true }]);
    expect(await query("select count(*)::int as n from etl.schema_changes")).toEqual([{ n: 2 }]);
  });
});

describe("the contracts that keep a table as it is", () => {
  let kept: SyncHarness;

  beforeAll(async () => {
    kept = await startSyncHarness("schema_discovery_discard", {
      today: "2026-01-31",
      etl: {
        dsp_keys: ["all"],
        territory_keys: ["all"],
        schema_contract: { dsps: "discard_row", territories: "discard_value" },
      },
      sandbox: { knobs: { drift: { extraFields: true } } },
    });
  });

  afterAll(() => kept.close());

  it("discard_row quarantines each record with a new field; discard_value loads it, the field in raw alone and no warning", async () => {
    const summaries = await kept.sync({ only: ["dsps", "territories"] });
    expect(failures(summaries)).toEqual([]);
    const query = (text: string) => kept.warehouse.query(text);
    expect(await query("select table_name from etl.discovered_columns")).toEqual([]);
    const served = kept.upstream.sandbox.data;
    const dsps = summaries.find((s) => s.stream === "dsps");
    expect(dsps?.rowsRejected).toBe(served.dsps().length);
    expect(await query("select count(*)::int as n from catalogue.dsps")).toEqual([{ n: 0 }]);
    const reasons = await query(
      "select distinct reason from etl.rejected_records where target_table = 'catalogue.dsps'",
    );
    expect(reasons).toEqual([
      { reason: 'new field x_unexpected, x_flags.beta (schema_contract "discard_row")' },
    ]);

    const territories = summaries.find((s) => s.stream === "territories");
    expect(territories?.rowsRejected).toBe(0);
    expect(territories?.warned).toEqual([]);
    expect(
      await query(
        `select count(*)::int as n, count(*) filter (where raw ? 'x_unexpected')::int as kept
           from catalogue.territories`,
      ),
    ).toEqual([{ n: served.territories().length, kept: served.territories().length }]);
  });
});
