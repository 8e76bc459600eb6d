import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrateToLatest } from "../../src/warehouse/migrate.js";
import type { Database } from "../../src/warehouse/schema.js";
import { createTestWarehouse, statementsSent, type TestWarehouse } from "../helpers/warehouse.js";

let warehouse: TestWarehouse;

beforeAll(async () => {
  warehouse = await createTestWarehouse("migrate");
});

afterAll(() => warehouse.drop());

describe("migrating the warehouse", () => {
  it("applies nothing twice", async () => {
    expect(await migrateToLatest(warehouse.db)).toEqual({ applied: [], newer: [] });
  });

  it("costs an up-to-date warehouse one query: no lock, no catalogue introspection", async () => {
    const statements = await statementsSent<Database>(warehouse.url, async (db) => {
      expect(await migrateToLatest(db)).toEqual({ applied: [], newer: [] });
    });
    expect(statements).toHaveLength(1);
    expect(statements[0]).toMatch(/from etl\.kysely_migration\b/);
  });

  it("leaves a warehouse a newer release migrated as it is, so a rolled-back worker starts", async () => {
    // What a newer release's migration leaves: its row, and its (additive) schema change.
    await warehouse.query(
      "insert into etl.kysely_migration (name, timestamp) values ('2099-01-01-001-future', now())",
    );
    await warehouse.query("alter table etl.attempts add column future_column text");
    expect(await migrateToLatest(warehouse.db)).toEqual({
      applied: [],
      newer: ["2099-01-01-001-future"],
    });
  });

  it("refuses a warehouse that is both ahead and behind: no release knows it", async () => {
    const [last] = await warehouse.query<{ name: string }>(
      "select name from etl.kysely_migration where name < '2099' order by name desc limit 1",
    );
    await warehouse.query("delete from etl.kysely_migration where name = $1", [last?.name]);
    await expect(migrateToLatest(warehouse.db)).rejects.toThrow(
      /does not know \(2099-01-01-001-future\) and lacks some it has/,
    );
  });
});
