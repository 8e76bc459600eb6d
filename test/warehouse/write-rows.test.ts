import { type Kysely, sql } from "kysely";
import { JsonDecimal } from "../../src/json/json-body.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KeptKeys } from "../../src/warehouse/kept-keys.js";
import { deleteMissingQuery } from "../../src/warehouse/delete-missing.js";
import {
  insertNewRows,
  type TableTarget,
  upsertRows,
  rowsByShape,
} from "../../src/warehouse/write-rows.js";
import { type Row } from "../../src/warehouse/row.js";
import { columnTypes } from "../../src/warehouse/storable-values.js";
import { type PlanNode, rowsExamined } from "../helpers/plan-work.js";
import { createTestWarehouse, statementsSent, type TestWarehouse } from "../helpers/warehouse.js";

const TARGET: TableTarget = {
  table: "sales.trend_items",
  key: ["day", "selection_type", "sale_type", "item_id"],
  columns: ["item_name", "count", "percentage", "raw"],
};
// Everything COPY's text format must escape, and what SQL quoting must survive.
const HOSTILE = [
  "tab\there",
  "new\nline",
  "carriage\rreturn",
  "back\\slash \\N \\\\N",
  "\\N",
  "quote ' double \" semicolon; drop table x; --",
  "emoji 🎵 Ελληνικά العربية 日本語",
  "",
  "NULL",
  '{braces, and "quotes"}',
];

let warehouse: TestWarehouse;
let db: Kysely<unknown>;
/** TARGET with every column's type, as a load knows them. */
let typed: TableTarget;

beforeAll(async () => {
  warehouse = await createTestWarehouse("write_rows");
  db = warehouse.db as unknown as Kysely<unknown>;
  // Typed columns of three kinds beside the key, as a sync's discovery makes them.
  await warehouse.query(
    "alter table sales.trend_items add item_name text, add count bigint, add percentage numeric",
  );
  const types = await columnTypes(db, "sales.trend_items");
  typed = { ...TARGET, types: new Map([...types].map(([column, { type }]) => [column, type])) };
});

afterAll(() => warehouse.drop());

/** `n` rows of one day; row i carries a hostile name and raw text. */
function rows(day: string, n: number, countOf = (i: number) => i): Row[] {
  return Array.from({ length: n }, (_, i) => {
    const text = `${HOSTILE[i % HOSTILE.length]} #${i}`;
    return {
      day,
      selection_type: "asset",
      sale_type: "stream",
      item_id: `item-${i}`,
      item_name: i % 10 === 9 ? null : text,
      count: countOf(i),
      percentage: i % 7 === 0 ? null : i / 8,
      raw: { id: `item-${i}`, name: text, nested: { list: [text, null, 1.5] } },
    };
  });
}

async function stored(day: string) {
  return warehouse.query<Record<string, unknown>>(
    `select item_id, item_name, count::text, percentage::text, raw::text from sales.trend_items
      where day = $1 order by item_id`,
    [day],
  );
}

/** Rows of a day as stored, raw parsed: jsonb normalises spacing. */
async function storedJson(day: string) {
  return (await stored(day)).map((r) => ({ ...r, raw: JSON.parse(String(r.raw)) as unknown }));
}

function expectedJson(input: Row[]) {
  return expected(input).map((r) => ({ ...r, raw: JSON.parse(r.raw) as unknown }));
}

function expected(input: Row[]) {
  return [...input]
    .sort((a, b) => String(a.item_id).localeCompare(String(b.item_id)))
    .map((row) => ({
      item_id: row.item_id,
      item_name: row.item_name,
      count: String(row.count),
      percentage: row.percentage === null ? null : String(row.percentage as number),
      raw: JSON.stringify(row.raw),
    }));
}

describe.each([
  ["a small batch (INSERT … VALUES)", 40, "2026-01-01", () => TARGET],
  ["a small batch of typed columns (INSERT … SELECT from unnest)", 40, "2026-01-03", () => typed],
  ["a large batch (COPY into staging, then INSERT … SELECT)", 1_200, "2026-01-02", () => TARGET],
])("upsertRows with %s", (_label, n, day, targetOf) => {
  let target: TableTarget;
  beforeAll(() => {
    target = targetOf();
  });

  it("stores every value byte for byte, nulls as null, outside a transaction", async () => {
    const input = rows(day, n);
    expect(await upsertRows(db, target, input)).toBe(n);
    expect(await storedJson(day)).toEqual(expectedJson(input));
  });

  it("writes nothing when nothing changed, and exactly the changed rows inside a transaction", async () => {
    expect(await upsertRows(db, target, rows(day, n))).toBe(0);
    const changed = rows(day, n, (i) => (i % 10 === 3 ? i + 1_000_000 : i));
    const written = await warehouse.db
      .transaction()
      .execute((trx) => upsertRows(trx as unknown as Kysely<unknown>, target, changed));
    expect(written).toBe(n / 10);
    const [row] = await warehouse.query<{ n: number }>(
      "select count(*)::int as n from sales.trend_items where day = $1 and count >= 1000000",
      [day],
    );
    expect(row?.n).toBe(n / 10);
  });

  it("keeps the last of rows with the same key, and rolls back with its transaction", async () => {
    const twice = [...rows(day, n), ...rows(day, n, () => 777_777)];
    await expect(
      warehouse.db.transaction().execute(async (trx) => {
        expect(await upsertRows(trx as unknown as Kysely<unknown>, target, twice)).toBe(n);
        throw new Error("roll back");
      }),
    ).rejects.toThrow("roll back");
    const [before] = await warehouse.query<{ n: number }>(
      "select count(*)::int as n from sales.trend_items where day = $1 and count = 777777",
      [day],
    );
    expect(before?.n).toBe(0);
    expect(await upsertRows(db, target, twice)).toBe(n);
    const [after] = await warehouse.query<{ n: number }>(
      "select count(*)::int as n from sales.trend_items where day = $1 and count = 777777",
      [day],
    );
    expect(after?.n).toBe(n);
  });
});

describe("insertNewRows", () => {
  const inTransaction = <T>(work: (trx: Kysely<unknown>) => Promise<T>) =>
    warehouse.db.transaction().execute((trx) => work(trx as unknown as Kysely<unknown>));

  it("copies new rows straight in, every value byte for byte, and keeps the last of a key", async () => {
    const day = "2026-02-01";
    const input = rows(day, 1_200);
    const twice = [...rows(day, 1_200, () => -1), ...input];
    expect(await inTransaction((trx) => insertNewRows(trx, TARGET, twice))).toBe(1_200);
    expect(await storedJson(day)).toEqual(expectedJson(input));
  });

  it("writes nothing and answers null when a key is stored, leaving its transaction usable", async () => {
    const day = "2026-02-02";
    await upsertRows(
      db,
      TARGET,
      rows(day, 1).map((row) => ({ ...row, item_id: "item-700" })),
    );
    const before = await stored(day);
    const input = rows(day, 1_200, (i) => i + 5);
    const outcome = await inTransaction(async (trx) => {
      await upsertRows(trx, TARGET, [{ ...rows("2026-02-03", 1)[0], item_id: "earlier" }]);
      const copied = await insertNewRows(trx, TARGET, input);
      const {
        rows: [inside],
      } = await sql<{ n: number }>`
        select count(*)::int as n from sales.trend_items where day = ${day}`.execute(trx);
      return { copied, inside: inside?.n, merged: await upsertRows(trx, TARGET, input) };
    });
    expect(outcome).toEqual({ copied: null, inside: before.length, merged: 1_200 });
    expect(await storedJson(day)).toEqual(expectedJson(input));
    // What the transaction wrote before the copy was kept.
    expect(await stored("2026-02-03")).toHaveLength(1);
  });

  it("sends a batch too small for COPY through the merge, stored keys or not, in or out of a transaction", async () => {
    const day = "2026-02-04";
    expect(await insertNewRows(db, TARGET, rows(day, 40))).toBe(40);
    expect(await inTransaction((trx) => insertNewRows(trx, TARGET, rows(day, 40)))).toBe(0);
    const changed = rows(day, 40, (i) => (i < 4 ? i + 1_000 : i));
    expect(await insertNewRows(db, TARGET, changed)).toBe(4);
    expect(await storedJson(day)).toEqual(expectedJson(changed));
  });

  it("opens a transaction of its own when given none", async () => {
    const day = "2026-02-05";
    expect(await insertNewRows(db, TARGET, rows(day, 600))).toBe(600);
    expect(await insertNewRows(db, TARGET, rows(day, 600))).toBeNull();
    expect(await storedJson(day)).toEqual(expectedJson(rows(day, 600)));
  });
});

describe("a small batch whose columns' types are all known", () => {
  const sentBy = (target: TableTarget, input: Row[]) =>
    statementsSent<unknown>(warehouse.url, (logging) => upsertRows(logging, target, input));

  it("goes as one statement whose text is the same for one row and for hundreds", async () => {
    const [one, many] = [
      await sentBy(typed, rows("2026-03-01", 1)),
      await sentBy(typed, rows("2026-03-02", 400)),
    ];
    expect(one).toHaveLength(1);
    expect(many).toEqual(one);
    expect(await storedJson("2026-03-02")).toEqual(expectedJson(rows("2026-03-02", 400)));
  });

  it("goes as values, a placeholder each, when a column's type is unknown or not built in", async () => {
    const mood = { ...typed, types: new Map([...(typed.types ?? []), ["item_name", "mood"]]) };
    for (const [target, day] of [
      [TARGET, "2026-03-03"],
      [mood, "2026-03-04"],
    ] as const) {
      const [one, many] = [await sentBy(target, rows(day, 1)), await sentBy(target, rows(day, 3))];
      expect(many[0]?.length).toBeGreaterThan(one[0]?.length ?? 0);
      expect(await storedJson(day)).toEqual(expectedJson(rows(day, 3)));
    }
  });

  it("stores instants, days, booleans, lists, exact decimals and nulls as a placeholder would", async () => {
    await warehouse.query(
      "create table public.kinds (id int8 primary key, at timestamptz, plain timestamp, day date, yes bool, tags _text, amount numeric, doc jsonb, note varchar(20), synced_at timestamptz default now())",
    );
    const types = await columnTypes(db, "public.kinds");
    const target = (typedToo: boolean): TableTarget => ({
      table: "public.kinds",
      key: ["id"],
      columns: ["at", "plain", "day", "yes", "tags", "amount", "doc", "note"],
      ...(typedToo ? { types: new Map([...types].map(([c, { type }]) => [c, type])) } : {}),
    });
    const input = (offset: number): Row[] => [
      {
        id: offset + 1,
        at: new Date("2026-03-01T12:34:56.789Z"),
        plain: "2026-03-01 01:02:03.456",
        day: "2026-03-01",
        yes: true,
        tags: '{"a","b,c","NULL",NULL}',
        amount: new JsonDecimal("12345678901234567890.123456789"),
        doc: { n: new JsonDecimal("0.10"), s: '"q"' },
        note: 'ü \\ "',
      },
      {
        id: offset + 2,
        at: null,
        plain: null,
        day: null,
        yes: false,
        tags: "{}",
        amount: 0.1,
        doc: [1, "two", null],
        note: "",
      },
      {
        id: offset + 3,
        at: undefined,
        plain: undefined,
        day: undefined,
        yes: null,
        tags: null,
        amount: null,
        doc: null,
        note: null,
      },
    ];
    expect(await upsertRows(db, target(false), input(0))).toBe(3);
    expect(await upsertRows(db, target(true), input(10))).toBe(3);
    const stored = await warehouse.query<Record<string, unknown>>(
      "select id % 10 as id, at::text, plain::text, day::text, yes, tags::text, amount::text, doc::text, note from public.kinds order by kinds.id",
    );
    expect(stored.slice(3)).toEqual(stored.slice(0, 3));
    expect(stored[0]).toMatchObject({
      amount: "12345678901234567890.123456789",
      tags: '{a,"b,c","NULL",NULL}',
      doc: '{"n": 0.10, "s": "\\"q\\""}',
    });
  });
});

describe("deleteMissingQuery", () => {
  const kept = (key: readonly string[], rows: readonly Row[]) => {
    const keys = new KeptKeys(key);
    for (const row of rows) keys.add(row);
    return keys;
  };
  const deleteMissing = async (target: TableTarget, scopes: Row[], keep: Row[]) =>
    Number(
      (await deleteMissingQuery(target, scopes, kept(target.key, keep)).execute(db))
        .numAffectedRows,
    );

  it("reads only the partition, through the key's index, and deletes what it did not keep", async () => {
    const days = Array.from(
      { length: 200 },
      (_, i) => `2027-0${1 + Math.floor(i / 28)}-${String(1 + (i % 28)).padStart(2, "0")}`,
    );
    for (const day of days) await insertNewRows(db, TARGET, rows(day, 50));
    await warehouse.query("analyze sales.trend_items");
    const scope = { day: "2027-03-05", selection_type: "asset", sale_type: "stream" };
    const keep = rows(scope.day, 40).map(({ item_id }) => ({ item_id }));
    const { rows: plan } =
      await sql`explain (format json) ${deleteMissingQuery(TARGET, [scope], kept(TARGET.key, keep))}`.execute(
        db,
      );
    // A plan that scans the whole table makes a backfill's deletes grow with the table.
    expect(JSON.stringify(plan)).not.toContain('"Seq Scan"');
    expect(await deleteMissing(TARGET, [scope], keep)).toBe(10);
    const [left] = await warehouse.query<{ day: number; all: number }>(
      "select count(*) filter (where day = $1)::int as day, count(*)::int as all from sales.trend_items where day >= '2027-01-01'",
      [scope.day],
    );
    expect(left).toEqual({ day: 40, all: 200 * 50 - 10 });
  });

  it.each(["without", "with"])(
    "looks at each row of the scope once to find what it keeps, %s statistics",
    async (statistics) => {
      const day = statistics === "with" ? "2027-10-01" : "2027-10-02";
      const scope = { day, selection_type: "asset", sale_type: "stream" };
      const written = rows(day, 1_000);
      await insertNewRows(db, TARGET, written);
      // A warehouse just backfilled, or whose autovacuum is off, has none.
      await warehouse.query(
        statistics === "with"
          ? "analyze sales.trend_items"
          : "delete from pg_statistic where starelid = 'sales.trend_items'::regclass",
      );
      const keep = kept(TARGET.key, written);
      const { rows: explained } = await sql<{ "QUERY PLAN": [{ Plan: PlanNode }] }>`
        explain (analyze, format json) ${deleteMissingQuery(TARGET, [scope], keep)}`.execute(db);
      const examined = rowsExamined(explained[0]?.["QUERY PLAN"][0].Plan as PlanNode);
      // The day's rows as the plan reads them (by the index, or a bitmap of it and then the
      // table): a check rescanned for every row of the scope looks at half a million.
      expect(examined).toBeGreaterThanOrEqual(written.length);
      expect(examined).toBeLessThanOrEqual(3 * written.length);
      expect(await deleteMissing(TARGET, [scope], written)).toBe(0);
    },
  );

  it("takes a null scope value as a scope of its own", async () => {
    const incomes: TableTarget = {
      table: "royalties.incomes",
      key: ["income_key"],
      columns: ["period_start", "raw"],
    };
    await upsertRows(db, incomes, [
      { income_key: "a", period_start: null, raw: { period: "n/a" } },
      { income_key: "b", period_start: null, raw: { period: "?" } },
      { income_key: "c", period_start: "2026-01-01", raw: { period: "2026-01" } },
    ]);
    expect(await deleteMissing(incomes, [{ period_start: null }], [{ income_key: "a" }])).toBe(1);
    const left = await warehouse.query<{ income_key: string }>(
      "select income_key from royalties.incomes order by 1",
    );
    expect(left.map((r) => r.income_key)).toEqual(["a", "c"]);
  });

  it("deletes in every scope at once, and keeps keys that hold quotes, backslashes and commas", async () => {
    const incomes: TableTarget = {
      table: "royalties.incomes",
      key: ["income_key"],
      columns: ["period_start", "raw"],
    };
    const keys = ['q"uote', "back\\slash", "com,ma", "{brace}", "NULL", " space ", "plain"];
    await upsertRows(db, incomes, [
      ...keys.map((income_key) => ({ income_key, period_start: "2026-02-01", raw: {} })),
      { income_key: "gone-feb", period_start: "2026-02-01", raw: {} },
      { income_key: "gone-mar", period_start: "2026-03-01", raw: {} },
      { income_key: "other-month", period_start: "2026-04-01", raw: {} },
    ]);
    const scopes = [{ period_start: "2026-02-01" }, { period_start: "2026-03-01" }];
    const keep = keys.map((income_key) => ({ income_key }));
    expect(await deleteMissing(incomes, scopes, keep)).toBe(2);
    const left = await warehouse.query<{ income_key: string }>(
      "select income_key from royalties.incomes where period_start >= '2026-02-01' order by 1",
    );
    expect(left.map((r) => r.income_key).sort()).toEqual([...keys, "other-month"].sort());
  });
});

describe("rows by shape", () => {
  const table = { table: "sales.trend_items", key: ["day", "item_id"] };

  it("takes a shape's columns from its rows, in their order, less the key", () => {
    const [only, ...others] = rowsByShape(
      table,
      [{ day: "2026-01-05", item_id: "7", item_name: "x", count: 3, raw: {} }],
      new Map(),
    );
    expect(others).toEqual([]);
    expect(only?.target).toEqual({ ...table, columns: ["item_name", "count", "raw"] });
  });

  it("writes each shape with its own columns, keeps one row per key and its targets", () => {
    const known = new Map<string, TableTarget>();
    const shaped = rowsByShape(
      table,
      [
        { day: "2026-01-05", item_id: "8", count: 4 },
        { day: "2026-01-05", item_id: "9", percentage: 0.5, raw: {} },
        { day: "2026-01-05", item_id: "8", count: 5 },
      ],
      known,
    );
    expect(shaped.map(({ target, rows }) => [target.columns, rows.length])).toEqual([
      [["count"], 1],
      [["percentage", "raw"], 1],
    ]);
    expect(shaped[0]?.rows).toEqual([{ day: "2026-01-05", item_id: "8", count: 5 }]);
    const [again] = rowsByShape(table, [{ day: "2026-01-06", item_id: "1", count: 1 }], known);
    expect(again?.target).toBe(shaped[0]?.target);
  });
});
