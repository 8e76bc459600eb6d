import { type Kysely, sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SchemaChangeBusyError } from "../../src/errors.js";
import {
  evolveTable,
  fingerprintOf,
  type WantedColumn,
} from "../../src/columns/discovered-columns.js";
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

/** A table's columns in order, and each one's comment. */
async function columnsOf(table: string) {
  return warehouse.query<{ name: string; comment: string | null }>(
    `select attname as name, col_description(attrelid, attnum) as comment from pg_attribute
      where attrelid = $1::regclass and attnum > 0 and not attisdropped order by attnum`,
    [table],
  );
}

async function recorded(table: string) {
  return warehouse.query<{ column_name: string; field: string[] }>(
    `select column_name, field from etl.discovered_columns where table_name = $1
      order by column_name`,
    [table],
  );
}

describe("a field named as a column of the pipeline's own", () => {
  const SHARED = "public.shared_names";

  beforeAll(async () => {
    await warehouse.query(
      `create table ${SHARED} (k integer primary key, raw jsonb, synced_at timestamptz);
       insert into ${SHARED} (k, raw, synced_at)
       values (1, '{"syncedAt": "2026-01-02T03:04:05Z", "synced_at": "early"}', '2026-02-01T00:00:00Z')`,
    );
  });

  it("gets the name that says it is the upstream's, filled from raw, explained by its comment", async () => {
    const { changes } = await evolveTable(
      db(),
      SHARED,
      [{ field: ["syncedAt"], kind: "timestamptz" }],
      ORIGIN,
    );
    expect(changes.map(({ column, field }) => [column, field])).toEqual([
      ["upstream_synced_at", ["syncedAt"]],
    ]);
    const [row] = await warehouse.query<{ upstream: string; ours: boolean }>(
      `select to_char(upstream_synced_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS') as upstream,
              synced_at = '2026-02-01T00:00:00Z' as ours
         from ${SHARED}`,
    );
    expect(row).toEqual({ upstream: "2026-01-02T03:04:05", ours: true });
    const comment = (await columnsOf(SHARED)).find((c) => c.name === "upstream_synced_at")?.comment;
    expect(comment).toContain(`The upstream's field "syncedAt", as test_stream received it`);
    expect(comment).toContain(
      "Named upstream_synced_at because synced_at is one of the pipeline's own columns.",
    );
  });

  it("is numbered when that name is taken too, and says by what", async () => {
    const { changes } = await evolveTable(
      db(),
      SHARED,
      [
        { field: ["synced_at"], kind: "text" },
        { field: ["upstreamSyncedAt"], kind: "bigint" },
      ],
      ORIGIN,
    );
    // The second sees the name the first took in the same change.
    expect(changes.map((c) => c.column)).toEqual(["upstream_synced_at_2", "upstream_synced_at_3"]);
    expect(await recorded(SHARED)).toEqual([
      { column_name: "upstream_synced_at", field: ["syncedAt"] },
      { column_name: "upstream_synced_at_2", field: ["synced_at"] },
      { column_name: "upstream_synced_at_3", field: ["upstreamSyncedAt"] },
    ]);
    const comments = new Map((await columnsOf(SHARED)).map((c) => [c.name, c.comment]));
    expect(comments.get("upstream_synced_at_2")).toContain(
      `Named upstream_synced_at_2 because synced_at is one of the pipeline's own columns and upstream_synced_at holds the upstream's field "syncedAt".`,
    );
    expect(comments.get("upstream_synced_at_3")).toContain(
      `Named upstream_synced_at_3 because upstream_synced_at holds the upstream's field "syncedAt" and upstream_synced_at_2 holds the upstream's field "synced_at".`,
    );
    const [row] = await warehouse.query<{ v: string }>(
      `select upstream_synced_at_2 as v from ${SHARED}`,
    );
    expect(row?.v).toBe("early");
  });

  it("keeps the name a warehouse already recorded for it: no column renamed or added", async () => {
    const table = "public.named_before";
    await warehouse.query(
      `create table ${table} (k integer primary key, raw jsonb, synced_at timestamptz,
                              synced_at_e6d68a timestamptz);
       insert into etl.discovered_columns (table_name, column_name, field, data_type)
       values ('${table}', 'synced_at_e6d68a', '{syncedAt}', 'timestamptz');
       insert into ${table} (k, raw) values (1, '{"syncedAt": "soon"}')`,
    );
    expect(
      (await evolveTable(db(), table, [{ field: ["syncedAt"], kind: "timestamptz" }], ORIGIN))
        .changes,
    ).toEqual([]);
    const widened = await evolveTable(db(), table, [{ field: ["syncedAt"], kind: "text" }], ORIGIN);
    expect(widened.changes.map(({ column, change }) => [column, change])).toEqual([
      ["synced_at_e6d68a", "widened"],
    ]);
    expect([...widened.columns.values()].map((c) => c.column)).toEqual(["synced_at_e6d68a"]);
    expect((await columnsOf(table)).map((c) => c.name)).toEqual([
      "k",
      "raw",
      "synced_at",
      "synced_at_e6d68a",
    ]);
    expect(await recorded(table)).toEqual([
      { column_name: "synced_at_e6d68a", field: ["syncedAt"] },
    ]);
    const [row] = await warehouse.query<{ v: string }>(
      `select synced_at_e6d68a as v from ${table}`,
    );
    expect(row?.v).toBe("soon");
  });
});
