import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWarehouse, type Warehouse } from "../../src/warehouse/database.js";
import { StatementNames } from "../../src/warehouse/statement-names.js";
import { createTestWarehouse, type TestWarehouse } from "../helpers/warehouse.js";

describe("statement names", () => {
  it("names a statement once it is seen often enough, the same name after", () => {
    const names = new StatementNames({ repeats: 3, limit: 10, maxLength: 100 });
    expect([names.nameOf("a"), names.nameOf("a")]).toEqual([undefined, undefined]);
    const name = names.nameOf("a");
    expect(name).toBeDefined();
    expect(names.nameOf("a")).toBe(name);
    expect(names.nameOf("b")).toBeUndefined();
  });

  it("names no more than its limit", () => {
    const names = new StatementNames({ repeats: 1, limit: 2, maxLength: 100 });
    expect(["a", "b", "c"].map((text) => names.nameOf(text) !== undefined)).toEqual([
      true,
      true,
      false,
    ]);
    expect(names.size).toBe(2);
  });

  it("names no statement longer than its length", () => {
    const names = new StatementNames({ repeats: 1, limit: 5, maxLength: 3 });
    expect([names.nameOf("abc") !== undefined, names.nameOf("abcd")]).toEqual([true, undefined]);
  });

  it("gives a forgotten statement a new name", () => {
    const names = new StatementNames({ repeats: 1, limit: 5, maxLength: 100 });
    const first = names.nameOf("a");
    names.forget("a");
    const second = names.nameOf("a");
    expect(second).toBeDefined();
    expect(second).not.toBe(first);
  });
});

describe("a warehouse's repeated statements", () => {
  let warehouse: TestWarehouse;
  let db: Warehouse;
  beforeAll(async () => {
    warehouse = await createTestWarehouse("statement_names");
    // One connection: what it has prepared is what the next statement sees.
    db = createWarehouse(warehouse.url, { maxConnections: 1 });
    await sql`create table scratch_names (id int primary key, note text)`.execute(db);
  });
  afterAll(async () => {
    await db.destroy();
    await warehouse.drop();
  });

  const prepared = async () =>
    (
      await sql<{ statement: string }>`select statement from pg_prepared_statements`.execute(db)
    ).rows.map((row) => row.statement);

  it("are prepared on their connection once repeated, and give the same answers", async () => {
    const insert = (id: number) =>
      sql`insert into scratch_names (id, note) values (${id}, ${`note ${id}`})`.execute(db);
    for (const id of [1, 2, 3, 4, 5]) await insert(id);
    expect(
      (await prepared()).filter((text) => text.includes("insert into scratch_names")),
    ).toHaveLength(1);
    const { rows } = await sql<{
      n: number;
    }>`select count(*)::int as n from scratch_names where id > ${0}`.execute(db);
    expect(rows).toEqual([{ n: 5 }]);
  });

  it("answer again after a column is added to what they read whole", async () => {
    const all = () =>
      sql<Record<string, unknown>>`select * from scratch_names where id = ${1}`.execute(db);
    for (let i = 0; i < 3; i += 1) await all();
    expect((await prepared()).some((text) => text.startsWith("select * from scratch_names"))).toBe(
      true,
    );
    await sql`alter table scratch_names add column extra int`.execute(db);
    // Postgres refuses the prepared statement once; the next asks it under a new name.
    await expect(all()).rejects.toThrow(/cached plan must not change result type/);
    expect((await all()).rows).toEqual([{ id: 1, note: "note 1", extra: null }]);
  });
});
