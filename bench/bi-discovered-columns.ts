import { existsSync } from "node:fs";
import type { Kysely } from "kysely";
import type { EtlConfig } from "../src/config/etl-config-schema.js";
import type { Warehouse } from "../src/warehouse/database.js";
import { evolveTable, type WantedColumn } from "../src/columns/discovered-columns.js";

/**
 * Gives `table` the discovered columns of `columns` as a sync would the first time the fields
 * arrive: through the worker's own schema change (a column added with `alter table … add column`,
 * commented, registered in etl.discovered_columns and etl.schema_changes), as `stream` would.
 * On an empty table the change is the columns alone; a table with rows has them filled from raw.
 */
export async function addDiscoveredColumns(
  db: Kysely<unknown>,
  table: string,
  columns: readonly WantedColumn[],
  stream: string,
): Promise<void> {
  await evolveTable(db, table, columns, { stream, partition: "bench", attemptId: "bench" });
}

/** The discovered columns a sync of the bundled sandbox makes, per table and stream. */
export const SANDBOX_DISCOVERED: readonly {
  readonly table: string;
  readonly stream: string;
  readonly columns: readonly WantedColumn[];
}[] = [
  {
    table: "sales.trend_items",
    stream: "trend_items",
    columns: [
      { field: ["name"], kind: "text" },
      { field: ["count"], kind: "bigint" },
      { field: ["percentage"], kind: "numeric" },
    ],
  },
  {
    table: "catalogue.products",
    stream: "products",
    columns: [
      { field: ["title"], kind: "text" },
      { field: ["label"], kind: "text" },
      { field: ["label_id"], kind: "bigint" },
      { field: ["release_date"], kind: "date" },
      { field: ["artist_id"], kind: "bigint" },
      { field: ["artist_name"], kind: "text" },
      { field: ["genre"], kind: "text" },
      { field: ["format"], kind: "text" },
    ],
  },
  {
    table: "catalogue.assets",
    stream: "products",
    columns: [
      { field: ["title"], kind: "text" },
      { field: ["duration"], kind: "bigint" },
      { field: ["track_number"], kind: "bigint" },
      { field: ["explicit"], kind: "boolean" },
    ],
  },
  {
    table: "royalties.incomes",
    stream: "incomes",
    columns: [
      { field: ["id"], kind: "bigint" },
      { field: ["period"], kind: "text" },
      { field: ["source"], kind: "text" },
      { field: ["dsp"], kind: "text" },
      { field: ["territory"], kind: "text" },
      { field: ["amount"], kind: "numeric" },
      { field: ["currency"], kind: "text" },
      { field: ["created_at"], kind: "timestamptz" },
    ],
  },
];

type SettleRoles = (db: Warehouse, settings: Readonly<Record<string, string>>) => Promise<unknown>;

/**
 * The analytics layer's roles settled on the data, where the release has them
 * (src/analytics/settle-roles.ts: which typed column each view reads, and the views rebuilt on
 * them); before it does, the views stay as the migrations made them. What was done, for the report.
 */
export async function settleAnalyticsRoles(db: Warehouse, config: EtlConfig): Promise<string> {
  const module = new URL("../src/analytics/settle-roles.ts", import.meta.url);
  if (!existsSync(module)) return "skipped: the release has no src/analytics/settle-roles.ts";
  const { settleRoles } = (await import(module.href)) as { settleRoles?: SettleRoles };
  if (typeof settleRoles !== "function") {
    return "skipped: src/analytics/settle-roles.ts exports no settleRoles";
  }
  // The configuration's roles (none set: every role inferred from the data).
  const { roles } = config as { roles?: Readonly<Record<string, string>> };
  const settled = (await settleRoles(db, roles ?? {})) as {
    readonly rebuilt?: readonly string[];
    readonly warnings?: readonly string[];
    readonly rolledUp?: { readonly days: number; readonly months: number };
  } | null;
  for (const warning of settled?.warnings ?? []) console.error(`bench: bi: ${warning}`);
  const rolledUp = settled?.rolledUp
    ? `, ${settled.rolledUp.days} days rolled up in ${settled.rolledUp.months} months`
    : "";
  return `settled: ${settled?.rebuilt?.length ?? "?"} rebuilt, ${settled?.warnings?.length ?? "?"} warnings${rolledUp}`;
}
