import { SALE_TYPES, SELECTION_TYPES } from "../dataset/trends.js";
import { formatDay } from "../days.js";
import { ValidationError } from "../http/errors.js";
import { pageOf } from "../http/paging.js";
import {
  date,
  dateTime,
  type Field,
  identifier,
  integer,
  jsonObject,
  oneOf,
  optional,
  parseParams,
  required,
} from "../http/params.js";
import { ok } from "../http/reply.js";
import type { Route } from "../http/router.js";
import { nestedPage, objectBody, servedLimit } from "../shapes.js";

// Filters are checked for type like the upstream does, then ignored: the sandbox's sales are
// not broken down by them (a documented simplification).
const FILTERS = {
  product_id: optional(identifier, null),
  artist_id: optional(identifier, null),
  asset_id: optional(identifier, null),
  asset_ids: optional(jsonObject, null),
  territory_id: optional(identifier, null),
  dsp_id: optional(identifier, null),
};
const selection_type = required(oneOf(SELECTION_TYPES));
const sale_type = required(oneOf(SALE_TYPES));

/** The fields every trends operation takes; `dates` is the operation's date format. */
function rangeFields(dates: Field<number>) {
  return { start_date: required(dates), end_date: required(dates), ...FILTERS };
}

/** The range as YYYY-MM-DD days (inclusive), refused when it ends before it starts. */
function range(params: { start_date: number; end_date: number }) {
  if (params.end_date < params.start_date) {
    throw new ValidationError({
      end_date: ["The end_date field must be a date after or equal to start_date."],
    });
  }
  return { start: formatDay(params.start_date), end: formatDay(params.end_date) };
}

export const trendsRoutes: Route[] = [
  {
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
  },
  {
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
        knobs.listShape === "array"
          ? items
          : { ...data.trendTotals(start, end, type), data: items },
      );
    },
  },
  {
    method: "GET",
    path: "/api/v1/getTrendsChart",
    operation: "trends.chart",
    handle: ({ body, data }) => {
      const params = parseParams(body(), { selection_type, sale_type, ...rangeFields(dateTime) });
      const { start, end } = range(params);
      return ok(data.trendChart(start, end, params.selection_type, params.sale_type));
    },
  },
];
