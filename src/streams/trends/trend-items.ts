import type { TrendItem } from "../../api/operations/trends.js";
import { nextOffset } from "../paging.js";
import { defineStream } from "../stream.js";
import { type SaleDay, saleDayScope, saleDays, wholeDay } from "./selection.js";

const PAGE_SIZE = 100;

export const trendItems = defineStream<SaleDay, TrendItem>({
  name: "trend_items",
  family: "trends",
  partitions: ({ days }) => saleDays(days),
  fetch: async ({ api, call }, { day, selectionType, saleType }, cursor) => {
    const offset = (cursor as number | null) ?? 0;
    const { items } = await api.trends.getTrendsList(
      {
        selection_type: selectionType,
        sale_type: saleType,
        ...wholeDay(day),
        offset,
        size: PAGE_SIZE,
      },
      call,
    );
    return { records: items, next: nextOffset(offset, items.length, PAGE_SIZE) };
  },
  outputs: [
    {
      target: {
        table: "sales.trend_items",
        key: ["day", "selection_type", "sale_type", "item_id"],
        columns: ["item_name", "count", "percentage", "raw"],
      },
      mode: "replace",
      scope: saleDayScope,
      rows: (item, partition) => [
        {
          ...saleDayScope(partition),
          item_id: item.id,
          item_name: item.name,
          count: item.count,
          percentage: item.percentage,
          raw: item.raw,
        },
      ],
    },
  ],
});
