import type { TrendSeries } from "../../api/operations/trends.js";
import { addDays } from "../../time/calendar.js";
import { defineStream } from "../stream.js";
import { type SaleDay, saleDayScope, saleDays, wholeDay } from "./selection.js";

export const trendChartPoints = defineStream<SaleDay, TrendSeries>({
  name: "trend_chart_points",
  family: "trends",
  partitions: ({ days }) => saleDays(days),
  fetch: async ({ api, call }, { day, selectionType, saleType }) => ({
    records: (
      await api.trends.getTrendsChart(
        { selection_type: selectionType, sale_type: saleType, ...wholeDay(day) },
        call,
      )
    ).series,
    next: null,
  }),
  outputs: [
    {
      target: {
        table: "sales.trend_chart_points",
        key: ["day", "selection_type", "sale_type", "series"],
        columns: ["total", "raw"],
      },
      mode: "replace",
      scope: saleDayScope,
      // One step per day from the start of the requested range.
      rows: (series, partition) =>
        series.totals.map((total, step) => ({
          ...saleDayScope(partition),
          day: addDays(partition.day, step),
          series: series.name,
          total,
          raw: series.raw,
        })),
    },
  ],
});
