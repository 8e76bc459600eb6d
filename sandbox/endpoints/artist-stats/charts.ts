import { CHART_COUNTRIES, CHART_GENRES } from "../../dataset/charts.js";
import { formatDay } from "../../days.js";
import { offset, PREFIX, todayOf, wrapped } from "../../families/artist-stats.js";
import { sandboxRoute } from "../../http/endpoint-route.js";
import { pageOf } from "../../http/paging.js";
import { date, integer, oneOf, optional, parseParams } from "../../http/params.js";
import { nestedPage, servedLimit } from "../../shapes.js";

export default sandboxRoute({
  method: "GET",
  path: `${PREFIX}/charts`,
  operation: "artistStats.charts",
  handle: ({ query, data, knobs }) => {
    const params = parseParams(query, {
      country_code: optional(oneOf(CHART_COUNTRIES), "GLOBAL"),
      genre: optional(oneOf(CHART_GENRES), "All Genres"),
      date: optional(date, todayOf(data)),
      offset,
      limit: optional(integer(1, 200), 100),
    });
    const rows = data.chart(params.country_code, params.genre, formatDay(params.date));
    const page = pageOf(rows, params.offset, servedLimit(params.limit, knobs.shapes));
    if (knobs.shapes.namedObjects) return wrapped({ data: nestedPage(page, rows.length) });
    // The wrapped shape still tells the whole chart's length, capped pages or not.
    return wrapped(knobs.chartsShape === "wrapped" ? { length: rows.length, data: page } : page);
  },
});
