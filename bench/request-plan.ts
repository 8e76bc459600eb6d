import { sustainedRequestsPerSecond } from "../src/http/request-budget.js";
import { addDays } from "../src/time/calendar.js";
import { withAccount } from "./account-run.js";
import { type Figure, round, type SectionResult } from "./report.js";

/** Days synced first: the history `etl plan` estimates paged streams from. */
const HISTORY_DAYS = 3;

/** `stream  partitions  requests  basis` rows of `etl plan`'s table, total included. */
function planRows(
  lines: readonly string[],
): { stream: string; partitions: number; requests: number }[] {
  return lines.flatMap((line) => {
    const match = /^(\w+)\s+(\d+)\s+(\d+)(\s|$)/.exec(line);
    return match
      ? [{ stream: match[1] ?? "", partitions: Number(match[2]), requests: Number(match[3]) }]
      : [];
  });
}

/**
 * 9. The request plan of the large account: its last 3 days synced (the history estimates come
 * from), then `etl plan` of a year's backfill, per stream, and the time it takes at 2 req/s, at
 * the pace the request budget sustains (2 requests per 1.05 s).
 * Section 3 measures the requests of that backfill itself.
 */
export async function requestPlan(): Promise<SectionResult> {
  return withAccount("plan", 1, async ({ deployment, range }) => {
    const recent = { from: addDays(range.to, 1 - HISTORY_DAYS), to: range.to };
    const synced = await deployment.sync(recent);
    const rows = planRows(await deployment.plan(range));
    const total = rows.find((row) => row.stream === "total");
    if (!total) throw new Error("etl plan printed no total");
    const figures: Figure[] = [
      { name: "range planned", value: `${range.from}..${range.to}` },
      { name: `history: sync of the last ${HISTORY_DAYS} days, requests`, value: synced.requests },
      ...rows.map((row) => ({
        name: `${row.stream}: partitions / requests`,
        value: `${row.partitions} / ${row.requests}`,
      })),
      {
        name: "time at 2 req/s, the budget's pace",
        value: round(total.requests / sustainedRequestsPerSecond(2) / 3600, 1),
        unit: "h",
      },
    ];
    return { section: "9 request plan", figures, targets: [] };
  });
}
