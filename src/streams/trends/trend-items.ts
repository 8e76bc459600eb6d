import { getTrendsList, type TrendItem } from "../../api/operations/trends.js";
import { listRead, single } from "../list-read.js";
import { nextOffset, offsetOf } from "../paging.js";
import { defineStream } from "../stream.js";
import { type SaleDay, saleDayScope, saleDays, wholeDay } from "./selection.js";

const PAGE_SIZE = 100;

export const trendItems = defineStream<SaleDay, TrendItem>({
  name: "trend_items",
  family: "trends",
  partitions: ({ days }) => saleDays(days),
  fetch: async ({ api, call }, { day, selectionType, saleType }, cursor) => [
    await api.exchange(
      getTrendsList,
      {
        selection_type: selectionType,
        sale_type: saleType,
        ...wholeDay(day),
        offset: offsetOf(cursor).offset,
        size: PAGE_SIZE,
      },
      call,
    ),
  ],
  read: (exchanges, _partition, cursor, context) => {
    const { items, others, list } = getTrendsList.parse(single(exchanges).body);
    const step = nextOffset(getTrendsList.name, cursor, PAGE_SIZE, list, context);
    return listRead({ records: items, others, list }, context, step);
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
