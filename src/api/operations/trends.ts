import { z } from "zod";
import { SALE_TYPES, SELECTION_TYPES } from "../enums.js";
import { toInteger, toDecimal, toText } from "../read-values.js";
import { asRecord, type JsonRecord } from "../../json/json-record.js";
import { type ListPage, listOf, readListPage, recordsOf, unwrapObject } from "../list-page.js";
import { splitItems } from "../results.js";
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

export interface TrendTotals {
  readonly streamCount: number | null;
  readonly downloadCount: number | null;
  readonly streamPercentage: string | null;
  readonly downloadPercentage: string | null;
  readonly raw: JsonRecord;
}

export interface TrendItem {
  /** The entity's id as text: numeric for most selection types, a country code for territories. */
  readonly id: string | null;
  readonly name: string | null;
  readonly count: number | null;
  readonly percentage: string | null;
  readonly raw: JsonRecord;
}

export interface TrendList {
  readonly items: readonly TrendItem[];
  /** Items of the list that are not objects. */
  readonly others: readonly unknown[];
  readonly list: ListPage;
  /** Present when the list arrives inside an object carrying the totals fields. */
  readonly totals: TrendTotals | null;
  readonly raw: unknown;
}

export interface TrendSeries {
  readonly name: string | null;
  /** One value per time step (one day per step for daily ranges). */
  readonly totals: readonly (number | null)[];
  readonly raw: JsonRecord;
}

export interface TrendChart {
  readonly groups: readonly string[];
  readonly series: readonly TrendSeries[];
  /** False when the body holds no series list at all. */
  readonly found: boolean;
  readonly raw: unknown;
}

const TOTALS_FIELDS = [
  "stream_count",
  "download_count",
  "stream_percentage",
  "download_percentage",
];

function toTotals(raw: JsonRecord): TrendTotals {
  return {
    streamCount: toInteger(raw.stream_count),
    downloadCount: toInteger(raw.download_count),
    streamPercentage: toDecimal(raw.stream_percentage),
    downloadPercentage: toDecimal(raw.download_percentage),
    raw,
  };
}

function toItem(raw: JsonRecord): TrendItem {
  return {
    id: toText(raw.id),
    name: toText(raw.name),
    count: toInteger(raw.count),
    percentage: toDecimal(raw.percentage),
    raw,
  };
}

function toList(body: unknown): TrendList {
  const envelope = asRecord(body);
  const carriesTotals = envelope !== null && TOTALS_FIELDS.some((field) => field in envelope);
  const list = readListPage(body);
  const { records, others } = splitItems(list.items);
  return {
    items: records.map(toItem),
    others,
    list,
    totals: carriesTotals ? toTotals(envelope) : null,
    raw: body,
  };
}

function toChart(body: unknown): TrendChart {
  const opened = unwrapObject(body);
  const envelope = asRecord(opened) ?? {};
  const seriesList = readListPage(envelope.data ?? opened);
  return {
    groups: listOf(envelope.groups).flatMap((group) => toText(group) ?? []),
    found: seriesList.found,
    series: recordsOf(seriesList.items).map((raw) => ({
      name: toText(raw.name),
      totals: listOf(raw.totals).map(toInteger),
      raw,
    })),
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
  parse: (body) => toTotals(asRecord(unwrapObject(body)) ?? {}),
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
  parse: toList,
});

export const getTrendsChart = defineOperation({
  name: "trends.chart",
  params: z.object(saleRange).refine(rangeInOrder, ORDERED),
  request: (params) => ({ method: "GET", path: `${API_PREFIX}/getTrendsChart`, body: params }),
  parse: toChart,
});

export const trendsOperations = { getTrendsTotal, getTrendsList, getTrendsChart };
