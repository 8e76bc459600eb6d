import type { TestWarehouse } from "../helpers/warehouse.js";

/** When a row was written or seen, not what it holds: differs between two correct runs. */
const BOOKKEEPING = new Set(["synced_at", "first_seen_at", "last_seen_at", "observed_at"]);
const DATA_SCHEMAS = ["catalogue", "sales", "artist_stats", "royalties"];
/**
 * Not landed from records: the sales roll-ups, summed from the items after a run (which a run cut
 * short may not have reached; the views read the items meanwhile, and test/analytics checks
 * both), and the days left to sum.
 */
const DERIVED = new Set([
  "sales.trend_item_days",
  "sales.trend_item_months",
  "sales.trend_item_stale_days",
]);

export interface TableFingerprint {
  readonly rows: number;
  /** md5 of every row's content (bookkeeping columns left out), in a stable order. */
  readonly digest: string;
}

/**
 * Every data table's columns that hold what a row says (bookkeeping left out), by name: columns
 * discovered from the data are added in the order their fields first arrived, which two correct
 * runs need not share.
 */
export async function dataColumns(
  warehouse: Pick<TestWarehouse, "query">,
): Promise<Map<string, string[]>> {
  const columns = await warehouse.query<{ table: string; column: string }>(
    `select table_schema || '.' || table_name as table, column_name as column
       from information_schema.columns c
       join information_schema.tables t using (table_schema, table_name)
      where table_schema = any($1) and t.table_type = 'BASE TABLE'
      order by 1, column_name`,
    [DATA_SCHEMAS],
  );
  const byTable = new Map<string, string[]>();
  for (const { table, column } of columns) {
    if (BOOKKEEPING.has(column) || DERIVED.has(table)) continue;
    byTable.set(table, [...(byTable.get(table) ?? []), column]);
  }
  return byTable;
}

/**
 * Every data table's row count and content digest: two warehouses with equal prints hold the same
 * data. `columns`: the tables and columns to print (default: every data column of every table).
 */
export async function fingerprints(
  warehouse: Pick<TestWarehouse, "query">,
  columns?: Map<string, string[]>,
): Promise<Map<string, TableFingerprint>> {
  const byTable = columns ?? (await dataColumns(warehouse));
  const result = new Map<string, TableFingerprint>();
  for (const [table, cols] of byTable) {
    const projection = cols.map((c) => `t.${JSON.stringify(c)}`).join(", ");
    const [row] = await warehouse.query<{ rows: number; digest: string }>(
      `select count(*)::int as rows, md5(coalesce(string_agg(x, E'\\n' order by x), '')) as digest
         from (select row(${projection})::text as x from ${table} t) s`,
    );
    result.set(table, { rows: row?.rows ?? 0, digest: row?.digest ?? "" });
  }
  return result;
}

/** Tables whose content differs, with both counts. */
export function differences(
  expected: Map<string, TableFingerprint>,
  actual: Map<string, TableFingerprint>,
): string[] {
  const tables = [...new Set([...expected.keys(), ...actual.keys()])].sort();
  return tables.flatMap((table) => {
    const e = expected.get(table);
    const a = actual.get(table);
    return e?.digest === a?.digest
      ? []
      : [`${table}: expected ${e?.rows ?? 0} rows, got ${a?.rows ?? 0}`];
  });
}

export function rowCount(prints: Map<string, TableFingerprint>): number {
  return [...prints.values()].reduce((sum, p) => sum + p.rows, 0);
}
