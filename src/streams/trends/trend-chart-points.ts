import { getTrendsChart, type TrendSeries } from "../../api/operations/trends.js";
import { single } from "../list-read.js";
import { addDays } from "../../time/calendar.js";
import { NO_PAGING } from "../paging.js";
import { defineStream, ONE_REQUEST } from "../stream.js";
import { type SaleDay, saleDayScope, saleDays, saleDayParams } from "./selection.js";

export const trendChartPoints = defineStream<SaleDay, TrendSeries>({
  name: "trend_chart_points",
  family: "trends",
  paging: NO_PAGING,
  daily: true,
  partitions: ({ days }) => saleDays(days),
  requests: ONE_REQUEST,
  fetch: async (_context, partition, page) => [
    await page.exchange(getTrendsChart, saleDayParams(partition)),
  ],
  read: (exchanges) => {
    const chart = getTrendsChart.parse(single(exchanges).body);
    return {
      records: chart.series,
      warnings: chart.found
        ? []
        : [{ kind: "no_list", message: "no series found in the response" }],
    };
  },
  outputs: [
    {
      target: {
        table: "sales.trend_chart_points",
        key: ["day", "selection_type", "sale_type", "series_position"],
      },
      mode: "replace",
      scope: saleDayScope,
      // One step per day from the start of the requested range. A series is its place in the
      // chart: two top entities may share a name.
      rows: (series, partition, position) =>
        series.totals.map((total, step) => ({
          ...saleDayScope(partition),
          day: addDays(partition.day, step),
          series_position: position,
          series: series.name,
          total,
          raw: series.raw,
        })),
    },
  ],
});
