import { type Kysely, sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SchemaChangeBusyError } from "../../src/errors.js";
import {
  evolveTable,
  fingerprintOf,
  type WantedColumn,
} from "../../src/warehouse/discovered-columns.js";
import { createTestWarehouse, type TestWarehouse } from "../helpers/warehouse.js";

// The table changes a discovered field asks for: made once whoever asks, widened from each row's
// raw so the text is the upstream's, filled for the rows written before, and waiting (never
// failing for good) behind a reader.

let warehouse: TestWarehouse;
const TABLE = "public.discovered";
const ORIGIN = { stream: "test_stream", partition: "p", attemptId: "attempt-1" };

beforeAll(async () => {
  warehouse = await createTestWarehouse("discovered_columns");
  await warehouse.query(`create table ${TABLE} (k integer primary key, raw jsonb)`);
});

afterAll(() => warehouse.drop());

const db = () => warehouse.db as unknown as Kysely<unknown>;
const want = (kind: WantedColumn["kind"]): WantedColumn[] => [{ field: ["n"], kind }];
const evolve = (kind: WantedColumn["kind"], wait?: Parameters<typeof evolveTable>[4]) =>
  evolveTable(db(), TABLE, want(kind), ORIGIN, wait);

async function typeOfN(): Promise<string | undefined> {
  const rows = await warehouse.query<{ data_type: string }>(
    `select data_type from information_schema.columns
      where table_name = 'discovered' and column_name = 'n'`,
  );
  return rows[0]?.data_type;
}

describe("a discovered column", () => {
  it("is added once when two workers ask at once, and recorded once", async () => {
    const [a, b] = await Promise.all([evolve("bigint"), evolve("bigint")]);
    expect([...a.changes, ...b.changes].map((c) => c.change)).toEqual(["added"]);
    expect(await typeOfN()).toBe("bigint");
    const comment = await warehouse.query<{ comment: string }>(
      `select col_description('${TABLE}'::regclass, 3) as comment`,
    );
    expect(comment[0]?.comment).toContain(`The upstream's field "n", as test_stream received it`);
  });

  it("widens, never narrows, and takes widened text from each row's raw", async () => {
    await warehouse.query(`insert into ${TABLE} (k, raw, n) values (1, '{"n": 7}', 7)`);
    expect((await evolve("numeric")).changes).toEqual([
      expect.objectContaining({ change: "widened", from: "bigint", to: "numeric" }),
    ]);
    expect((await evolve("bigint")).changes).toEqual([]);
    expect(await typeOfN()).toBe("numeric");
    await warehouse.query(`insert into ${TABLE} (k, raw, n) values (2, '{"n": 12.50}', 12.50)`);
    // Written under a frozen contract: the value stayed in raw alone.
    await warehouse.query(`insert into ${TABLE} (k, raw) values (3, '{"n": "n/a"}')`);
    expect((await evolve("text")).changes).toEqual([
      expect.objectContaining({ change: "widened", from: "numeric", to: "text" }),
    ]);
    const rows = await warehouse.query<{ k: number; n: string | null }>(
      `select k, n from ${TABLE} order by k`,
    );
    expect(rows).toEqual([
      { k: 1, n: "7" },
      { k: 2, n: "12.50" },
      { k: 3, n: "n/a" },
    ]);
    const recorded = await warehouse.query<{ change: string; to_type: string }>(
      `select change, to_type from etl.schema_changes where table_name = $1 order by change_id`,
      [TABLE],
    );
    expect(recorded).toEqual([
      { change: "added", to_type: "bigint" },
      { change: "widened", to_type: "numeric" },
      { change: "widened", to_type: "text" },
    ]);
  });

  it("is filled for the rows written before it whose raw has the field, typed to hold them all", async () => {
    await warehouse.query(
      `insert into ${TABLE} (k, raw) values
         (10, '{"m": 3, "o": [1]}'), (11, '{"m": 4.250}'), (12, '{"m": null}'), (13, '{}')`,
    );
    const { changes } = await evolveTable(
      db(),
      TABLE,
      [
        { field: ["m"], kind: "bigint" },
        { field: ["o"], kind: "bigint" },
      ],
      ORIGIN,
    );
    expect(changes.map(({ column, to }) => [column, to])).toEqual([
      ["m", "numeric"],
      ["o", "jsonb"],
    ]);
    const rows = await warehouse.query<{ k: number; m: string | null; o: unknown }>(
      `select k, m::text, o from ${TABLE} where k >= 10 order by k`,
    );
    expect(rows).toEqual([
      { k: 10, m: "3", o: [1] },
      { k: 11, m: "4.250", o: null },
      { k: 12, m: null, o: null },
      { k: 13, m: null, o: null },
    ]);
  });

  it("waits for a reader holding the table, and gives up only as a retryable error", async () => {
    let holding = () => {};
    const held = new Promise<void>((resolve) => (holding = resolve));
    let release = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    const reader = db()
      .transaction()
      .execute(async (trx) => {
        await sql`select count(*) from ${sql.table(TABLE)}`.execute(trx);
        holding();
        await released;
      });
    try {
      await held;
      const error = await evolve("jsonb", { lockTimeoutMs: 100, attempts: 2 }).catch(
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(SchemaChangeBusyError);
      expect(await typeOfN()).toBe("text");
      // Let go during the waits: the change is made.
      const made = evolve("jsonb", { lockTimeoutMs: 100, attempts: 50 });
      release();
      expect((await made).changes).toEqual([expect.objectContaining({ to: "jsonb" })]);
      expect(await typeOfN()).toBe("jsonb");
    } finally {
      release();
      await reader;
    }
  });

  it("has one fingerprint in Postgres and in the worker, whatever the names' order, changed by a widening", async () => {
    const table = "public.fingerprinted";
    await warehouse.query(`create table ${table} (k integer primary key, raw jsonb)`);
    // Byte order puts "a_b" before "ab" and "z" before "é"; a linguistic collation would not.
    const fields = ["ab", "é", "a_b", "z"].map((name) => ({
      field: [name],
      kind: "bigint" as const,
    }));
    const read = async () => {
      const rows = await warehouse.query<{ prints: string[] }>(
        `select etl.discovered_columns_fingerprints(array[$1, 'public.none']) as prints`,
        [table],
      );
      return rows[0]?.prints;
    };
    const added = await evolveTable(db(), table, fields, ORIGIN);
    expect(added.changes).toHaveLength(4);
    expect(await read()).toEqual([fingerprintOf(added.columns), ""]);
    const widened = await evolveTable(db(), table, [{ field: ["z"], kind: "text" }], ORIGIN);
    expect(fingerprintOf(widened.columns)).not.toBe(fingerprintOf(added.columns));
    expect(await read()).toEqual([fingerprintOf(widened.columns), ""]);
    expect(fingerprintOf(new Map())).toBe("");
  });
});
