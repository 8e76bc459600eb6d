// The dashboard shows what an operator looks at first, each in a panel of its own: a renamed
// metric or a panel lost in an edit would otherwise go unseen until the day it is needed. A panel
// is recognised by what its queries read, not by its title.
import { describe, expect, it } from "vitest";
import { type DashboardPanel, dashboardPanels } from "../helpers/ops-files.js";

/** One query of the panel matches each pattern. */
const queries =
  (...patterns: RegExp[]) =>
  (panel: DashboardPanel) =>
    patterns.every((pattern) => panel.expressions.some((expr) => pattern.test(expr)));

const WANTED: readonly (readonly [string, (panel: DashboardPanel) => boolean])[] = [
  ["upstream requests by status", queries(/by \(status\) \(rate\(etl_http_requests_total\[/)],
  ["429s", queries(/rate\(etl_http_requests_total\{status="429"\}\[/)],
  [
    "the rate budget: allowed against made",
    queries(/\betl_request_rate_limit\b/, /^sum\(rate\(etl_http_requests_total\[[^\]]*\]\)\)$/),
  ],
  [
    "partitions by outcome",
    queries(/by \(status\) \(rate\(etl_partition_duration_seconds_count\[/),
  ],
  [
    "freshness per stream",
    queries(
      /^time\(\) - max by \([^)]*\bstream\b[^)]*\) \(etl_stream_last_success_timestamp_seconds\)$/,
    ),
  ],
  ["queue depth by state", queries(/by \(state\) \(etl_queue_jobs\b/)],
  ["rows written by stream", queries(/by \(stream\) \(rate\(etl_rows_written_total\[/)],
  ["whether Postgres and Redis answer", queries(/^min by \(dependency\) \(etl_dependency_up\)$/)],
  [
    "the figures kept through an outage",
    queries(/^max by \(source\) \(etl_metrics_source_stale\)$/),
  ],
];

describe("the dashboard", () => {
  it.each(WANTED)("has a panel showing %s", (_, shows) => {
    const panels = dashboardPanels().filter(shows);
    expect(panels.map((panel) => panel.title)).not.toEqual([]);
  });
});
