// Every metric the alerts, their unit tests and the dashboard name must be one the worker exports:
// a renamed metric otherwise leaves an alert that never fires and a panel that shows nothing.
import { describe, expect, it } from "vitest";
import { createEtlMetrics } from "../../src/metrics/etl-metrics.js";
import { dashboardExpressions, rules, ruleTests } from "../helpers/ops-files.js";
import { metricNames } from "../helpers/promql.js";

/** Series Prometheus itself makes for every scrape, not exported by the worker. */
const SCRAPE_SERIES = ["up"];

/** The series names a fresh worker registry exports: histograms as _bucket, _sum and _count. */
async function exportedNames(): Promise<Set<string>> {
  const metrics = await createEtlMetrics({ streams: ["trend_items"] }).registry.getMetricsAsJSON();
  return new Set(
    metrics.flatMap((metric) => {
      // prom-client's types declare an enum; the values are the exposition's type names.
      const type = metric.type as unknown as string;
      if (type === "histogram") return ["_bucket", "_sum", "_count"].map((s) => metric.name + s);
      if (type === "summary") return [metric.name, `${metric.name}_sum`, `${metric.name}_count`];
      return [metric.name];
    }),
  );
}

/** The names in `expressions` that nothing exports or records, each once. */
async function unknownNames(expressions: readonly string[]): Promise<string[]> {
  const known = await exportedNames();
  for (const rule of rules()) if (rule.record) known.add(rule.record);
  for (const name of SCRAPE_SERIES) known.add(name);
  return [...new Set(expressions.flatMap(metricNames))].filter((name) => !known.has(name));
}

describe("metric names", () => {
  it("in the alert rules are exported by the worker or recorded by a rule", async () => {
    const expressions = rules().map((rule) => rule.expr);
    expect(expressions.flatMap(metricNames)).toContain("etl_stream_last_success_timestamp_seconds");
    expect(await unknownNames(expressions)).toEqual([]);
  });

  it("in the rules' unit tests are exported by the worker", async () => {
    // A test fed series the worker never exports would pass against a fiction.
    const series = ruleTests().flatMap((test) => test.input_series ?? []);
    const names = series.map((s) => s.series.split("{")[0] ?? "");
    expect(names).toContain("etl_queue_jobs");
    expect(await unknownNames(names)).toEqual([]);
  });

  it("in the dashboard are exported by the worker", async () => {
    const expressions = dashboardExpressions();
    expect(expressions.flatMap(metricNames)).toContain("etl_request_rate_limit");
    expect(await unknownNames(expressions)).toEqual([]);
  });

  it("are every identifier of PromQL but its own words, and a foreign or misspelt one is reported", async () => {
    expect(
      metricNames(
        'histogram_quantile(0.95, sum by (le) (rate(etl_http_request_duration_seconds_bucket{stream="etl_x", le!="+Inf"}[$__rate_interval] offset 1h30m))) > on (job) group_left (family) etl:threshold * 1e3',
      ),
    ).toEqual(["etl_http_request_duration_seconds_bucket", "etl:threshold"]);
    expect(
      metricNames(
        "max without (instance) (max_over_time(up[5m])) unless ignoring (state) absent(x_total) and bool time()",
      ),
    ).toEqual(["up", "x_total"]);
    expect(
      await unknownNames([
        "rate(etl_nope_total[5m]) / rate(etl_http_requests_total[5m])",
        "etl_partition_duration_seconds > 0",
        "sum(rate(elt_rows_written_total[5m])) + max(bullmq_jobs_waiting)",
        'up{job="music-etl"} + process_cpu_user_seconds_total + etl:stream_stale_threshold_seconds',
      ]),
    ).toEqual([
      "etl_nope_total",
      "etl_partition_duration_seconds",
      "elt_rows_written_total",
      "bullmq_jobs_waiting",
    ]);
  });
});
