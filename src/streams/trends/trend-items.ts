import { getTrendsList } from "../../api/operations/trends.js";
import { toText } from "../../api/read-values.js";
import { endpointStream } from "../endpoint-stream.js";
import { offsetPaging } from "../paging.js";
import { SALE_DAYS, saleDayParams } from "./selection.js";

/** A day's list per selection and sale type; the items' fields but the id (their key) are discovered. */
export const trendItems = endpointStream({
  name: "trend_items",
  family: "trends",
  partitions: SALE_DAYS,
  operation: getTrendsList,
  params: saleDayParams,
  paging: offsetPaging(getTrendsList.name, 100, "size"),
  records: "list",
  table: "sales.trend_items",
  key: ["day", "selection_type", "sale_type", "item_id"],
  mode: "replace",
  columns: (item) => ({
    // Numeric for most selection types, a country code for territories.
    item_id: toText(item.id),
  }),
});
