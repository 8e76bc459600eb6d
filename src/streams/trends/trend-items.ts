import { getTrendsList, type TrendItem } from "../../api/operations/trends.js";
import { listRead, single } from "../list-read.js";
import { offsetPaging } from "../paging.js";
import { defineStream } from "../stream.js";
import { type SaleDay, saleDayScope, saleDays, saleDayParams } from "./selection.js";

const paging = offsetPaging(getTrendsList.name, 100, "size");

export const trendItems = defineStream<SaleDay, TrendItem, typeof paging>({
  name: "trend_items",
  family: "trends",
  paging,
  daily: true,
  partitions: ({ days }) => saleDays(days),
  fetch: async (_context, partition, page) => [
    await page.exchange(getTrendsList, saleDayParams(partition)),
  ],
  read: (exchanges) => {
    const { items, others, list } = getTrendsList.parse(single(exchanges).body);
    return listRead({ records: items, others, list });
  },
  outputs: [
    {
      target: {
        table: "sales.trend_items",
        key: ["day", "selection_type", "sale_type", "item_id"],
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
