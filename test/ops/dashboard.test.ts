// The dashboard shows what an operator looks at first, each in a panel of its own: a renamed
// metric or a panel lost in an edit would otherwise go unseen until the day it is needed. A panel
// is recognised by what its queries read, not by its title. Every query shows the workers of the
// job and instances chosen, and a count of nothing shows 0 rather than "No data".
import { afterAll, describe, expect, it } from "vitest";
import { createEtlMetrics } from "../../src/metrics/etl-metrics.js";
import {
  type DashboardPanel,
  dashboardExpressions,
  dashboardPanels,
  dashboardVariables,
} from "../helpers/ops-files.js";
import { vectorSelectors } from "../helpers/promql.js";
import { promtool } from "../helpers/promtool.js";
import { makeTempDir } from "../helpers/temp-dir.js";

/** The label matchers of the workers chosen, last in every selector of the dashboard. */
const CHOSEN = 'job="$job", instance=~"$instance"';

/** A query without the choice of workers, as the patterns below read it. */
const unchosen = (expr: string) =>
  expr.replaceAll(`, ${CHOSEN}}`, "}").replaceAll(`{${CHOSEN}}`, "");

/** One query of the panel matches each pattern. */
const queries =
  (...patterns: RegExp[]) =>
  (panel: DashboardPanel) =>
    patterns.every((pattern) => panel.expressions.some((expr) => pattern.test(unchosen(expr))));

const THE_429S = /rate\(etl_http_requests_total\{status="429"\}\[/;

const WANTED: readonly (readonly [string, (panel: DashboardPanel) => boolean])[] = [
  ["upstream requests by status", queries(/by \(status\) \(rate\(etl_http_requests_total\[/)],
  ["429s", queries(THE_429S)],
  [
    "the rate budget: allowed against made",
    queries(
      /\betl_request_rate_limit\b/,
      /^sum\(rate\(etl_http_requests_total\[[^\]]*\]\)\)( or |$)/,
    ),
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
  [
    "what waits for a fix, per stream",
    queries(
      /^max by \([^)]*\bstream\b[^)]*\) \(etl_stream_rejected_records\)$/,
      /^max by \([^)]*\bstream\b[^)]*\) \(etl_stream_uncertain_partitions\)$/,
      /^max by \([^)]*\bstream\b[^)]*\) \(etl_stream_unread_partitions\)$/,
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

describe("the dashboard's job and instance", () => {
  const variable = (name: string) => dashboardVariables().find((v) => v.name === name);

  // One job: the queue and stream figures of two deployments must not be taken together.
  it("are chosen among the workers scraped: one job, any of its instances", async () => {
    const job = variable("job");
    const instance = variable("instance");
    expect(job).toMatchObject({ type: "query", multi: false, includeAll: false });
    expect(instance).toMatchObject({ type: "query", multi: true, includeAll: true });
    const jobMetric = /^label_values\((\w+), job\)$/.exec(job?.query ?? "")?.[1];
    const instanceMetric = /^label_values\((\w+)\{job="\$job"\}, instance\)$/.exec(
      instance?.query ?? "",
    )?.[1];
    // Exported by every worker from its start, whatever it has read or done.
    const exported = await createEtlMetrics().registry.metrics();
    for (const metric of [jobMetric, instanceMetric]) {
      expect(exported).toMatch(new RegExp(`^${metric}[{ ]`, "m"));
    }
  });

  it("filter every query of every panel", () => {
    // What a selector that forgot them looks like, so that none found means none, not none read.
    expect(vectorSelectors(`sum(rate(a{status="429", ${CHOSEN}}[5m])) or on() 0 * sum(b)`)).toEqual(
      [
        { name: "a", matchers: `status="429", ${CHOSEN}` },
        { name: "b", matchers: "" },
      ],
    );
    const expressions = dashboardExpressions();
    expect(expressions.length).toBeGreaterThan(0);
    const unfiltered = expressions.flatMap((expr) =>
      vectorSelectors(expr)
        .filter(({ matchers }) => {
          const each = matchers.split(",").map((matcher) => matcher.trim());
          return !each.includes('job="$job"') || !each.includes('instance=~"$instance"');
        })
        .map(({ name }) => `${name} in ${expr}`),
    );
    expect(unfiltered).toEqual([]);
  });
});

/**
 * What a worker exports when it has run no partition and made no request since it started, every
 * source read: its etl_ series.
 */
async function quietExposition(): Promise<string> {
  const metrics = createEtlMetrics({
    streams: ["trend_items"],
    schedules: [{ stream: "trend_items", family: "trends", intervalSeconds: 3600 }],
  });
  metrics.setSources({
    queueCounts: () => Promise.resolve({}),
    streams: () =>
      Promise.resolve([
        {
          stream: "trend_items",
          family: "trends",
          lastSuccessAt: new Date(0),
          lastDay: "1970-01-01",
          failedPartitions: 0,
          rejectedRecords: 0,
          uncertainPartitions: 0,
          unreadPartitions: 0,
        },
      ]),
    requestRate: () => Promise.resolve({ requestsPerSecond: 5, source: "config" }),
    credentialRefused: () => false,
    dependencies: () => [
      { name: "postgres", up: true, since: new Date(0) },
      { name: "redis", up: true, since: new Date(0) },
    ],
  });
  return metrics.registry.metrics();
}

/** Each etl_ sample of an exposition as a promtool input series with `labels`, steady for an hour. */
function inputSeries(exposition: string, labels: string): { series: string; values: string }[] {
  return exposition
    .split("\n")
    .filter((line) => line.startsWith("etl_"))
    .map((line) => {
      const [, name = "", inner, value = ""] = /^([\w:]+)(?:\{(.*)\})? (\S+)$/.exec(line) ?? [];
      return { series: `${name}{${inner ? `${inner},` : ""}${labels}}`, values: `${value}x60` };
    });
}

/** The query as Grafana sends it, with the job and instances chosen. */
function asSent(expr: string, job: string, instance: string): string {
  return expr
    .replaceAll("$__rate_interval", "5m")
    .replaceAll("$job", job)
    .replaceAll("$instance", instance);
}

describe("the dashboard's queries of workers to which nothing happened", () => {
  const dir = makeTempDir("dashboard-quiet");
  afterAll(() => dir.remove());

  // 0 where a worker is scraped and counted nothing; nothing where none is, rather than a 0 that
  // nobody counted (Workers up says why).
  it("show 0, not No data, and the 429s are those of the workers chosen", async () => {
    const quiet = 'job="music-etl", instance="worker:9464"';
    const the429s = dashboardExpressions().find((expr) => THE_429S.test(unchosen(expr))) ?? "";
    // Another worker of the job, and a worker of another job, get a 429 every second.
    const rateLimited = ['job="music-etl", instance="worker-2:9464"', 'job="other-etl"'].flatMap(
      (labels) => [
        { series: `etl_build_info{version="1.0.0",node_version="v20",${labels}}`, values: "1x60" },
        {
          series: `etl_http_requests_total{operation="trends.items",status="429",${labels}}`,
          values: "0+60x60",
        },
      ],
    );
    const at = "30m";
    const cases = [
      {
        expr: asSent(the429s, "music-etl", "worker:9464"),
        eval_time: at,
        exp_samples: [{ labels: "{}", value: 0 }],
      },
      {
        expr: asSent(the429s, "music-etl", "worker-2:9464"),
        eval_time: at,
        exp_samples: [{ labels: "{}", value: 1 }],
      },
      { expr: asSent(the429s, "gone-etl", ".*"), eval_time: at, exp_samples: [] },
      // Every query has a value, but the quantiles of request durations (no request, no
      // duration) and the rate probing found refused (no 429, no such rate).
      ...dashboardExpressions()
        .filter(
          (expr) =>
            !expr.startsWith("histogram_quantile(") && !expr.includes("etl_request_rate_refused"),
        )
        .map((expr) => ({
          expr: `(count(${asSent(expr, "music-etl", "worker:9464")}) > bool 0) or vector(0)`,
          eval_time: at,
          exp_samples: [{ labels: "{}", value: 1 }],
        })),
    ];
    const file = dir.write("quiet.test.yml", {
      evaluation_interval: "1m",
      tests: [
        {
          interval: "1m",
          input_series: [
            { series: `up{${quiet}}`, values: "1x60" },
            ...inputSeries(await quietExposition(), quiet),
            ...rateLimited,
          ],
          promql_expr_test: cases,
        },
      ],
    });
    expect(the429s).not.toBe("");
    expect(promtool("test", "rules", file)).toContain("SUCCESS");
  });
});
