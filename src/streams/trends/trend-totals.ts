import { z } from "zod";
import { API_PREFIX, defineOperation } from "../../api/operation.js";
import { calendarDate } from "../../api/params.js";
import { toObjectAnswer } from "../../api/results.js";
import { toDecimal, toInteger } from "../../api/read-values.js";
import { asRecord } from "../../json/json-record.js";
import { endpointStream } from "../endpoint-stream.js";
import { SELECTION_DAYS } from "./selection.js";
import { FILTERS, ORDERED, rangeInOrder, selection_type } from "./trends-params.js";

/** A day's totals of a selection type; the spec names its four fields. */
export const getTrendsTotalOperation = defineOperation({
  name: "trends.total",
  params: z
    .object({ selection_type, start_date: calendarDate, end_date: calendarDate, ...FILTERS })
    .refine(rangeInOrder, ORDERED),
  request: (params) => ({ method: "GET", path: `${API_PREFIX}/getTrendsTotal`, body: params }),
  parse: toObjectAnswer,
});

export const trendTotals = endpointStream({
  name: "trend_totals",
  family: "trends",
  partitions: SELECTION_DAYS,
  operation: getTrendsTotalOperation,
  params: ({ day, selectionType }) => ({
    selection_type: selectionType,
    start_date: day,
    end_date: day,
  }),
  // The day's one row, whatever came: what no count could be read from is said, not skipped.
  records: ({ data }) => {
    const totals = asRecord(data) ?? {};
    const counts = [toInteger(totals.stream_count), toInteger(totals.download_count)];
    const known = counts.some((count) => count !== null);
    return {
      records: [totals],
      warnings: known
        ? []
        : [{ kind: "no_list", message: "no totals field found in the response" }],
    };
  },
  table: "sales.trend_totals",
  key: ["day", "selection_type"],
  mode: "upsert",
  columns: (totals) => ({
    stream_count: toInteger(totals.stream_count),
    download_count: toInteger(totals.download_count),
    stream_percentage: toDecimal(totals.stream_percentage),
    download_percentage: toDecimal(totals.download_percentage),
  }),
});
