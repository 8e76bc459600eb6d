import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_READER_LIMITS, grantReaderRole } from "../../src/warehouse/reader-role.js";
import { PROJECT_ROOT } from "../helpers/cli.js";
import type { SyncHarness } from "../helpers/sync-harness.js";
import { startFilledWarehouse } from "./filled-warehouse.js";

const DOC = readFileSync(resolve(PROJECT_ROOT, "docs/warehouse.md"), "utf8");
const QUERIES = [...DOC.matchAll(/```sql\n([\s\S]*?)```/g)].map((match) => match[1] ?? "");
const SCHEMAS = ["catalogue", "sales", "artist_stats", "royalties", "analytics", "etl"];

// Roles are cluster-wide: a name of this file's own, dropped at the end.
const READER = `bi_doc_${randomBytes(4).toString("hex")}`;
let harness: SyncHarness;
let reader: pg.Client;

beforeAll(async () => {
  harness = await startFilledWarehouse("bi_doc");
  await grantReaderRole(harness.warehouse.db, {
    role: READER,
    login: true,
    limits: DEFAULT_READER_LIMITS,
  });
  const url = new URL(harness.warehouse.url);
  reader = new pg.Client({
    host: url.hostname,
    port: Number(url.port || 5432),
    database: decodeURIComponent(url.pathname.slice(1)),
    user: READER,
  });
  await reader.connect();
}, 120_000);

afterAll(async () => {
  await reader?.end();
  if (harness) {
    const role = pg.escapeIdentifier(READER);
    await harness.warehouse.query(`drop owned by ${role}`).catch(() => undefined);
    await harness.warehouse.query(`drop role if exists ${role}`);
  }
  await harness?.close();
});

describe("docs/warehouse.md", () => {
  it("has at least ten example queries", () => {
    expect(QUERIES.length).toBeGreaterThanOrEqual(10);
  });

  it.each(QUERIES.map((text, i) => [i + 1, text] as const))(
    "example query %i runs on a filled warehouse as the reader role grant-reader makes, and returns rows",
    async (_n, text) => {
      const { rows } = await reader.query(text);
      expect(rows.length).toBeGreaterThanOrEqual(1);
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
