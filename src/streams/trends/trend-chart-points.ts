import { z } from "zod";
import { API_PREFIX, defineOperation } from "../../api/operation.js";
import { listOf, readListPage, recordsOf, unwrapObject } from "../../api/list-page.js";
import { toInteger, toText } from "../../api/read-values.js";
import { asRecord, type JsonRecord } from "../../json/json-record.js";
import { addDays } from "../../time/calendar.js";
import { endpointStream } from "../endpoint-stream.js";
import { SALE_DAYS, saleDayParams } from "./selection.js";
import { ORDERED, rangeInOrder, SALE_RANGE } from "./trends-params.js";

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

/** A range's chart of a selection and sale type: a series per entity, and the Total. */
export const getTrendsChartOperation = defineOperation({
  name: "trends.chart",
  params: z.object(SALE_RANGE).refine(rangeInOrder, ORDERED),
  request: (params) => ({ method: "GET", path: `${API_PREFIX}/getTrendsChart`, body: params }),
  parse: toChart,
});

/** One step of a chart's series: a series' `totals` hold one value per day of the range. */
interface ChartPoint {
  /** The series as received: what untyped values are named within. */
  readonly raw: JsonRecord;
  /** The series' place in the chart: two top entities may share a name. */
  readonly seriesPosition: number;
  readonly step: number;
  readonly total: unknown;
}

export const trendChartPoints = endpointStream({
  name: "trend_chart_points",
  family: "trends",
  partitions: SALE_DAYS,
  operation: getTrendsChartOperation,
  params: saleDayParams,
  records: (chart) => ({
    records: chart.series.flatMap((series, seriesPosition) =>
      listOf(series.totals).map((total, step): ChartPoint => ({
        raw: series,
        seriesPosition,
        step,
        total,
      })),
    ),
    warnings: chart.found ? [] : [{ kind: "no_list", message: "no series found in the response" }],
  }),
  raw: (point) => point.raw,
  madeFrom: ["totals"],
  table: "sales.trend_chart_points",
  key: ["day", "selection_type", "sale_type", "series_position"],
  mode: "replace",
  columns: (point, { partition }) => ({
    day: addDays(partition.day, point.step),
    series_position: point.seriesPosition,
    series: toText(point.raw.name),
    total: toInteger(point.total),
  }),
});
