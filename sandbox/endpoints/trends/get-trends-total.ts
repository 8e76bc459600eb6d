import { rangeFields, range, selection_type } from "../../families/trends.js";
import { sandboxRoute } from "../../http/endpoint-route.js";
import { date, parseParams } from "../../http/params.js";
import { ok } from "../../http/reply.js";
import { objectBody } from "../../shapes.js";

export default sandboxRoute({
  method: "GET",
  path: "/api/v1/getTrendsTotal",
  operation: "trends.total",
  handle: ({ body, data, knobs }) => {
    const params = parseParams(body(), { selection_type, ...rangeFields(date) });
    const { start, end } = range(params);
    return ok(
      objectBody(data.trendTotals(start, end, params.selection_type), knobs.shapes, "totals"),
    );
  },
});
