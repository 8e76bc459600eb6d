import { z } from "zod";
import { API_PREFIX, defineOperation } from "../../api/operation.js";
import { limit, offset } from "../../api/params.js";
import { toRecordList } from "../../api/results.js";
import { toText } from "../../api/read-values.js";
import { endpointStream } from "../endpoint-stream.js";
import { offsetPaging } from "../paging.js";
import { SALE_DAYS, saleDayParams } from "./selection.js";
import { ORDERED, rangeInOrder, SALE_RANGE } from "./trends-params.js";

/** A page of a day's list of a selection and sale type. */
export const getTrendsListOperation = defineOperation({
  name: "trends.list",
  params: z
    .object({ ...SALE_RANGE, offset: offset.optional(), size: limit.optional() })
    .refine(rangeInOrder, ORDERED),
  // The spec types offset and size as strings.
  request: ({ offset, size, ...params }) => ({
    method: "GET",
    path: `${API_PREFIX}/getTrendsList`,
    body: {
      ...params,
      ...(offset === undefined ? {} : { offset: String(offset) }),
      ...(size === undefined ? {} : { size: String(size) }),
    },
  }),
  parse: toRecordList,
});

/** A day's list per selection and sale type; the items' fields but the id (their key) are discovered. */
export const trendItems = endpointStream({
  name: "trend_items",
  family: "trends",
  partitions: SALE_DAYS,
  operation: getTrendsListOperation,
  params: saleDayParams,
  paging: offsetPaging(getTrendsListOperation.name, 100, "size"),
  records: "list",
  table: "sales.trend_items",
  key: ["day", "selection_type", "sale_type", "item_id"],
  mode: "replace",
  columns: (item) => ({
    // Numeric for most selection types, a country code for territories.
    item_id: toText(item.id),
  }),
});
