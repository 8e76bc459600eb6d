import { rangeFields, range, sale_type, selection_type } from "../../families/trends.js";
import { sandboxRoute } from "../../http/endpoint-route.js";
import { pageOf } from "../../http/paging.js";
import { dateTime, integer, optional, parseParams } from "../../http/params.js";
import { ok } from "../../http/reply.js";
import { nestedPage, servedLimit } from "../../shapes.js";

export default sandboxRoute({
  method: "GET",
  path: "/api/v1/getTrendsList",
  operation: "trends.list",
  handle: ({ body, data, knobs }) => {
    const params = parseParams(body(), {
      selection_type,
      sale_type,
      offset: optional(integer(0), 0),
      size: optional(integer(1, 500), 50),
      ...rangeFields(dateTime),
    });
    const { start, end } = range(params);
    const type = params.selection_type;
    const full = data.trendList(start, end, type, params.sale_type);
    const list = knobs.shortListDays.includes(start) ? full.slice(0, -1) : full;
    const limit = servedLimit(params.size, knobs.shapes);
    const items = pageOf(list, params.offset, limit);
    if (knobs.shapes.namedObjects) {
      // A 1-based page number, as paginators count, of pages of the size served.
      const page = Math.floor(params.offset / limit) + 1;
      return ok({ data: nestedPage(items, list.length, { page }) });
    }
    return ok(
      knobs.listShape === "array" ? items : { ...data.trendTotals(start, end, type), data: items },
    );
  },
});
