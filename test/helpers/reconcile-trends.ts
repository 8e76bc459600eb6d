import { SALE_TYPES, SELECTION_TYPES } from "../../src/api/enums.js";
import type { Sandbox } from "../../sandbox/index.js";
import type { TestWarehouse } from "./warehouse.js";

/**
 * Differences between the stored trend items of the days and what the sandbox serves: one line
 * per (day, selection, sale) whose item ids or counts differ. Empty when the warehouse is exact.
 */
export async function trendItemDifferences(
  warehouse: TestWarehouse,
  sandbox: Sandbox,
  days: readonly string[],
): Promise<string[]> {
  const rows = await warehouse.query<{ key: string; items: string }>(
    `select day::text || '|' || selection_type || '|' || sale_type as key,
            string_agg(item_id || '=' || count, ',' order by item_id) as items
       from sales.trend_items where day = any($1::date[]) group by 1`,
    [days],
  );
  const stored = new Map(rows.map((r) => [r.key, r.items]));
  const differences: string[] = [];
  for (const day of days) {
    for (const selection of SELECTION_TYPES) {
      for (const sale of SALE_TYPES) {
        const key = `${day}|${selection}|${sale}`;
        const served = sandbox.data
          .trendList(day, day, selection, sale)
          .map((i) => `${String(i.id)}=${i.count}`)
          .sort((a, b) =>
            (a.split("=")[0] ?? "").localeCompare(b.split("=")[0] ?? "", "en", { numeric: false }),
          )
          .join(",");
        const mine = stored.get(key) ?? "";
        if (normalise(mine) !== normalise(served)) differences.push(key);
      }
    }
  }
  return differences;
}

/** Order-independent form of "id=count,id=count". */
function normalise(list: string): string {
  return list.split(",").filter(Boolean).sort().join(",");
}
