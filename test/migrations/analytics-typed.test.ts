import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { settleRoles } from "../../src/analytics/settle-roles.js";
import { migrateToLatest } from "../../src/warehouse/migrate.js";
import { createTestWarehouse, type TestWarehouse } from "../helpers/warehouse.js";

// The analytics views read typed columns only, chosen by meaning: a view that reads a table's
// `raw` asks for a field by the name one upstream gives it, and is null against every upstream
// that names it otherwise. The pipeline's own jsonb columns (a stream's
// checkpoint, a run's warnings) are not `raw`, and may be read.

let warehouse: TestWarehouse;

beforeAll(async () => {
  warehouse = await createTestWarehouse("analytics_typed");
  // As `etl migrate` does: the views are built from the roles once the warehouse is migrated.
  await migrateToLatest(warehouse.db);
  await settleRoles(warehouse.db, {});
});

afterAll(() => warehouse?.drop());

/** A view's definition without its string literals: a word inside quotes names no column. */
const withoutLiterals = (definition: string) => definition.replace(/'(?:[^']|'')*'/g, "''");

/** The references to a column named raw in a view's definition, as written there. */
function rawReferences(definition: string): string[] {
  return withoutLiterals(definition).match(/[\w."]*\braw\b"?/g) ?? [];
}

describe("the analytics views", () => {
  it("are told apart by whether they read raw, by the word as a column, not a text", () => {
    expect(rawReferences("select (p.raw ->> 'title'::text) as title")).toEqual(["p.raw"]);
    expect(rawReferences("select \"raw\" ->> 'count' from t")).toEqual(['"raw"']);
    expect(rawReferences("select raw from t")).toEqual(["raw"]);
    expect(rawReferences("select checkpoint ->> 'day' from etl.stream_state")).toEqual([]);
    expect(rawReferences("select 'raw' as kind, raw_count, rawness from t")).toEqual([]);
  });

  it("read typed columns only: none reads a table's raw", async () => {
    const views = await warehouse.query<{ view: string; definition: string }>(
      `select schemaname || '.' || viewname as view, definition
         from pg_views where schemaname = 'analytics' order by 1`,
    );
    expect(views.length, "views in schema analytics").toBeGreaterThan(0);
    const readingRaw = views.flatMap(({ view, definition }) => {
      const references = rawReferences(definition);
      return references.length === 0 ? [] : [`${view}: ${[...new Set(references)].join(", ")}`];
    });
    expect(readingRaw, "analytics views reading raw").toEqual([]);
  });
});
