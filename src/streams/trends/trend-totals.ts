import { getTrendsTotal, type TrendTotals } from "../../api/operations/trends.js";
import { single } from "../list-read.js";
import { NO_PAGING } from "../paging.js";
import { defineStream, ONE_REQUEST } from "../stream.js";
import { type SelectionDay, selectionDays } from "./selection.js";

export const trendTotals = defineStream<SelectionDay, TrendTotals>({
  name: "trend_totals",
  family: "trends",
  paging: NO_PAGING,
  daily: true,
  partitions: ({ days }) => selectionDays(days),
  requests: ONE_REQUEST,
  fetch: async (_context, { day, selectionType }, page) => [
    await page.exchange(getTrendsTotal, {
      selection_type: selectionType,
      start_date: day,
      end_date: day,
    }),
  ],
  read: (exchanges) => {
    const totals = getTrendsTotal.parse(single(exchanges).body);
    const known = [totals.streamCount, totals.downloadCount].some((value) => value !== null);
    return {
      records: [totals],
      warnings: known
        ? []
        : [{ kind: "no_list", message: "no totals field found in the response" }],
    };
  },
  outputs: [
    {
      target: {
        table: "sales.trend_totals",
        key: ["day", "selection_type"],
      },
      mode: "upsert",
      rows: (totals, { day, selectionType }) => [
        {
          day,
          selection_type: selectionType,
          stream_count: totals.streamCount,
          download_count: totals.downloadCount,
          stream_percentage: totals.streamPercentage,
          download_percentage: totals.downloadPercentage,
          raw: totals.raw,
        },
      ],
    },
  ],
});
