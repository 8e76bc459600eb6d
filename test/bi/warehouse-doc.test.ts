import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PROJECT_ROOT } from "../helpers/cli.js";
import type { SyncHarness } from "../helpers/sync-harness.js";
import { startFilledWarehouse } from "./filled-warehouse.js";

const DOC = readFileSync(resolve(PROJECT_ROOT, "docs/warehouse.md"), "utf8");
const QUERIES = [...DOC.matchAll(/```sql\n([\s\S]*?)```/g)].map((match) => match[1] ?? "");
const SCHEMAS = ["catalogue", "sales", "artist_stats", "royalties", "analytics", "etl"];

let harness: SyncHarness;

beforeAll(async () => {
  harness = await startFilledWarehouse("bi_doc");
}, 120_000);

afterAll(() => harness?.close());

describe("docs/warehouse.md", () => {
  it("has at least ten example queries", () => {
    expect(QUERIES.length).toBeGreaterThanOrEqual(10);
  });

  it.each(QUERIES.map((text, i) => [i + 1, text] as const))(
    "example query %i runs on a filled warehouse, read-only, and returns rows",
    async (_n, text) => {
      const { query } = harness.warehouse;
      await query("begin transaction read only");
      try {
        const rows = await query(text);
        expect(rows.length).toBeGreaterThanOrEqual(1);
      } finally {
        await query("rollback");
      }
    },
  );

  it("mentions every table and view of the warehouse's schemas", async () => {
    const relations = await harness.warehouse.query<{ name: string }>(
      `select table_schema || '.' || table_name as name from information_schema.tables
        where table_schema = any($1) order by 1`,
      [SCHEMAS],
    );
    expect(relations.length).toBeGreaterThan(25);
    const missing = relations
      .map((r) => r.name)
      .filter((name) => !new RegExp(`(?<![\\w.])${name.replace(".", "\\.")}(?!\\w)`).test(DOC));
    expect(missing).toEqual([]);
  });
});
