import { rangeFields, range, sale_type, selection_type } from "../../families/trends.js";
import { sandboxRoute } from "../../http/endpoint-route.js";
import { dateTime, parseParams } from "../../http/params.js";
import { ok } from "../../http/reply.js";

export default sandboxRoute({
  method: "GET",
  path: "/api/v1/getTrendsChart",
  operation: "trends.chart",
  handle: ({ body, data }) => {
    const params = parseParams(body(), { selection_type, sale_type, ...rangeFields(dateTime) });
    const { start, end } = range(params);
    return ok(data.trendChart(start, end, params.selection_type, params.sale_type));
  },
});
