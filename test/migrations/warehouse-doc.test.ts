import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { STREAMS } from "../../src/streams/registry.js";
import { DEFAULT_READER_LIMITS, grantReaderRole } from "../../src/warehouse/reader-role.js";
import { PROJECT_ROOT } from "../helpers/cli.js";
import { failures, type SyncHarness } from "../helpers/sync-harness.js";
import {
  type ColumnClaim,
  schemaQualifiedColumns,
  tableColumnClaims,
} from "./doc-column-claims.js";
import { startFilledWarehouse } from "./filled-warehouse.js";

const DOC = readFileSync(resolve(PROJECT_ROOT, "docs/warehouse.md"), "utf8");
const QUERIES = [...DOC.matchAll(/```sql\n([\s\S]*?)```/g)].map((match) => match[1] ?? "");
const SCHEMAS = ["catalogue", "sales", "artist_stats", "royalties", "analytics", "etl"];
const DOC_FILES = [
  "README.md",
  ...readdirSync(resolve(PROJECT_ROOT, "docs"))
    .filter((name) => name.endsWith(".md"))
    .map((name) => `docs/${name}`),
];

/**
 * What the doc's tables quote in a relation's row that is not a column of it: values a column
 * holds (statuses, kinds, platforms, metrics, how a role was resolved), configuration keys, a
 * type, the catalogue a view reads, and the columns of the kept row that a version describes.
 */
const NOT_COLUMNS: Readonly<Record<string, readonly string[]>> = {
  "artist_stats.platform_stats": ["lookback_days"],
  "artist_stats.audience_stats": ["social_3", "short_video", "video"],
  "analytics.artist_follower_growth": ["followers", "subscribers", "fans", "likes"],
  "analytics.stream_missing_days": ["start_date", "radio_history_days"],
  "analytics.run_history": ["sync", "replay"],
  "analytics.join_paths": ["pg_constraint"],
  "history.row_versions": ["null", "raw", "synced_at"],
  "etl.attempts": ["running", "succeeded", "failed", "interrupted", "abandoned"],
  "etl.runs": ["sync", "replay", "queued", "running", "succeeded", "failed", "interrupted", "lost"],
  "etl.stream_settings": ["radio_history_days"],
  "etl.roles": ["configured", "inferred", "pending", "absent", "unresolved", "ambiguous"],
  "royalties.invoices": ["jsonb"],
};
// A stream is named in the rows of the tables it fills; its name is no column.
const STREAM_NAMES = new Set(STREAMS.map((stream) => stream.name));
const isColumnClaim = (claim: ColumnClaim) =>
  !STREAM_NAMES.has(claim.column) && !NOT_COLUMNS[claim.relation]?.includes(claim.column);

// Roles are cluster-wide: a name of this file's own, dropped at the end.
const READER = `bi_doc_${randomBytes(4).toString("hex")}`;
let harness: SyncHarness;
let reader: pg.Client;

beforeAll(async () => {
  harness = await startFilledWarehouse("bi_doc");
  // The doc names a video market coverage's columns for both shapes the upstream may answer in
  // (one object, or the list of markets): synced once more as a list, it has both shapes' columns.
  harness.upstream.sandbox.setKnobs({ shapes: { listSnapshots: true } });
  const coverage = await harness.sync({ only: ["artist_stats_video_market_coverage"] });
  expect(failures(coverage)).toEqual([]);
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
});

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

  it("names in its tables of tables and views only columns they have", async () => {
    const columns = await warehouseColumns();
    const claims = tableColumnClaims(DOC).filter(isColumnClaim);
    // The tables name some 220 columns of 60 relations: far fewer means the rows went unread.
    expect(claims.length).toBeGreaterThan(180);
    expect(new Set(claims.map((claim) => claim.relation)).size).toBeGreaterThan(50);
    const missing = claims.filter((c) => !columns.has(`${c.relation}.${c.column}`));
    expect(missing.map((c) => `docs/warehouse.md:${c.line} ${c.relation}.${c.column}`)).toEqual([]);
  });

  it("is, with every other doc, right about each schema.table.column it names", async () => {
    const columns = await warehouseColumns();
    const claims = DOC_FILES.flatMap((file) =>
      schemaQualifiedColumns(readFileSync(resolve(PROJECT_ROOT, file), "utf8"), [
        ...SCHEMAS,
        "history",
      ]).map((claim) => ({ file, ...claim })),
    );
    // The docs name some 30 such columns, half of them in docs/warehouse.md.
    expect(claims.length).toBeGreaterThan(25);
    expect(claims.filter((c) => c.file === "docs/warehouse.md").length).toBeGreaterThan(10);
    const missing = claims.filter((c) => !columns.has(`${c.relation}.${c.column}`));
    expect(missing.map((c) => `${c.file}:${c.line} ${c.relation}.${c.column}`)).toEqual([]);
  });
});

/** Every column of the warehouse's tables and views, as schema.table.column. */
async function warehouseColumns(): Promise<Set<string>> {
  const rows = await harness.warehouse.query<{ name: string }>(
    `select table_schema || '.' || table_name || '.' || column_name as name
       from information_schema.columns
      where table_schema not in ('pg_catalog', 'information_schema')`,
  );
  return new Set(rows.map((row) => row.name));
}
