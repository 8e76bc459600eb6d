import { getTrendsList, type TrendItem } from "../../api/operations/trends.js";
import { listRead, single } from "../list-read.js";
import { offsetPaging, type OffsetCursor } from "../paging.js";
import { defineStream } from "../stream.js";
import { type SaleDay, saleDayScope, saleDays, wholeDay } from "./selection.js";

const paging = offsetPaging(getTrendsList.name, 100, "size");

export const trendItems = defineStream<SaleDay, TrendItem, OffsetCursor>({
  name: "trend_items",
  family: "trends",
  paging,
  partitions: ({ days }) => saleDays(days),
  fetch: async ({ api, call }, { day, selectionType, saleType }, cursor) => [
    await api.exchange(
      getTrendsList,
      {
        selection_type: selectionType,
        sale_type: saleType,
        ...wholeDay(day),
        ...paging.params(cursor),
      },
      call,
    ),
  ],
  read: (exchanges, _partition, cursor, context) => {
    const { items, others, list } = getTrendsList.parse(single(exchanges).body);
    return listRead({ records: items, others, list }, context, paging.next(list, cursor, context));
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
