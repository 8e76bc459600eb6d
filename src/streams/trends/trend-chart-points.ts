import { getTrendsChart } from "../../api/operations/trends.js";
import { listOf } from "../../api/list-page.js";
import { toInteger, toText } from "../../api/read-values.js";
import type { JsonRecord } from "../../json/json-record.js";
import { addDays } from "../../time/calendar.js";
import { endpointStream } from "../endpoint-stream.js";
import { SALE_DAYS, saleDayParams } from "./selection.js";

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
  operation: getTrendsChart,
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
