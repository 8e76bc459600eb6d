import { z } from "zod";
import { SALE_TYPES, SELECTION_TYPES } from "../enums.js";
import { toText } from "../read-values.js";
import { asRecord, type JsonRecord } from "../../json/json-record.js";
import { listOf, readListPage, recordsOf, unwrapObject } from "../list-page.js";
import { toRecordList, toObjectAnswer } from "../results.js";
import { API_PREFIX, defineOperation } from "../operation.js";
import {
  calendarDate,
  identifier,
  limit,
  localDateTime,
  nonEmptyText,
  offset,
  oneOf,
} from "../params.js";

/** A chart's series as received, and the groups (the days or entities) its totals are for. */
export interface TrendChart {
  readonly groups: readonly string[];
  readonly series: readonly JsonRecord[];
  /** False when the body holds no series list at all. */
  readonly found: boolean;
  readonly raw: unknown;
}

function toChart(body: unknown): TrendChart {
  const opened = unwrapObject(body);
  const envelope = asRecord(opened) ?? {};
  const seriesList = readListPage(envelope.data ?? opened);
  return {
    groups: listOf(envelope.groups).flatMap((group) => toText(group) ?? []),
    found: seriesList.found,
    series: recordsOf(seriesList.items),
    raw: body,
  };
}

/** Optional filters common to the three operations; numeric ids may go as JSON numbers. */
const filters = {
  product_id: identifier.optional(),
  artist_id: identifier.optional(),
  asset_id: identifier.optional(),
  asset_ids: z.record(z.string(), z.unknown(), "must be an object").optional(),
  territory_id: nonEmptyText.optional(),
  dsp_id: identifier.optional(),
};

const ORDERED = { message: "must not be after end_date", path: ["start_date"] };

function rangeInOrder(value: { start_date: string; end_date: string }): boolean {
  return value.start_date <= value.end_date;
}

const selection_type = oneOf(SELECTION_TYPES);

/** List and chart: a sale type, and the range as date-times. */
const saleRange = {
  selection_type,
  sale_type: oneOf(SALE_TYPES),
  start_date: localDateTime,
  end_date: localDateTime,
  ...filters,
};

export const getTrendsTotal = defineOperation({
  name: "trends.total",
  params: z
    .object({ selection_type, start_date: calendarDate, end_date: calendarDate, ...filters })
    .refine(rangeInOrder, ORDERED),
  request: (params) => ({ method: "GET", path: `${API_PREFIX}/getTrendsTotal`, body: params }),
  parse: toObjectAnswer,
});

export const getTrendsList = defineOperation({
  name: "trends.list",
  params: z
    .object({ ...saleRange, offset: offset.optional(), size: limit.optional() })
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

export const getTrendsChart = defineOperation({
  name: "trends.chart",
  params: z.object(saleRange).refine(rangeInOrder, ORDERED),
  request: (params) => ({ method: "GET", path: `${API_PREFIX}/getTrendsChart`, body: params }),
  parse: toChart,
});

export const trendsOperations = { getTrendsTotal, getTrendsList, getTrendsChart };
