import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../../src/logging/logger.js";
import { createEtlMetrics, type EtlMetrics } from "../../src/metrics/etl-metrics.js";
import { QUEUE_STATES } from "../../src/metrics/queue-gauges.js";
import { type OperatorServer, startOperatorServer } from "../../src/operator/operator-server.js";
import { runPromtool } from "../helpers/promtool.js";
import { startUpstream } from "../helpers/upstream.js";
import { getTerritoriesOperation } from "../../src/streams/catalogue/territories.js";

const logger = createLogger({ level: "silent", secrets: [] });

const METRIC_NAMES = [
  "etl_build_info",
  "etl_http_requests_total",
  "etl_http_retries_total",
  "etl_upstream_failure_bodies_total",
  "etl_http_request_duration_seconds",
  "etl_rows_written_total",
  "etl_untyped_values_total",
  "etl_rejected_records_total",
  "etl_partition_warnings_total",
  "etl_phase_seconds_total",
  "etl_jobs_stalled_total",
  "etl_partition_duration_seconds",
  "etl_queue_jobs",
  "etl_stream_last_success_timestamp_seconds",
  "etl_stream_last_day_timestamp_seconds",
  "etl_stream_failed_partitions",
  "etl_stream_rejected_records",
  "etl_stream_uncertain_partitions",
  "etl_stream_unread_partitions",
  "etl_stream_schedule_interval_seconds",
  "etl_request_rate_limit",
  "etl_request_rate_refused",
  "etl_request_rate_changes_total",
  "etl_upstream_credential_refused",
  "etl_dependency_up",
  "etl_dependency_last_change_timestamp_seconds",
  "etl_metrics_source_stale",
  "etl_schema_changes_total",
];

const OPERATION = "catalogue.getTerritories";

/** Metrics in which every ETL metric has series: tries, partitions and every source. */
function observedMetrics(): EtlMetrics {
  // catalogue_territories' family has its schedule off: it has no interval.
  const metrics = createEtlMetrics({
    schedules: [{ stream: "sales_trends", family: "trends", intervalSeconds: 3600 }],
  });
  metrics.observeStalledJob();
  metrics.observeRateChange({ from: 9, to: 13 });
  metrics.observeRateChange({ from: 13, to: 9 });
  metrics.observeRateChange({ from: 9, to: 11 });
  metrics.observeTry({ operation: OPERATION, outcome: 200, durationMs: 250, tryNumber: 1 });
  metrics.observeTry({ operation: OPERATION, outcome: 429, durationMs: 500, tryNumber: 1 });
  metrics.observeTry({ operation: OPERATION, outcome: 200, durationMs: 250, tryNumber: 2 });
  metrics.observeTry({
    operation: "royalties.getInvoice",
    outcome: 200,
    durationMs: 5,
    tryNumber: 1,
    failureBody: '{"status":false,"message":"try later"}',
  });
  metrics.observeTry({
    operation: "trends.sales",
    outcome: "NetworkError",
    durationMs: 5,
    tryNumber: 1,
  });
  metrics.observePartition({
    stream: "catalogue_territories",
    partition: "all",
    status: "succeeded",
    requests: 3,
    rowsWritten: 40,
    rowsRejected: 0,
    failureBodies: 0,
    warnings: [],
    untyped: [],
    timings: { fetchMs: 1_500, normaliseMs: 250, writeMs: 750 },
    durationMs: 2_500,
  });
  metrics.observePartition({
    stream: "sales_trends",
    partition: "2026-01-02",
    status: "failed",
    requests: 1,
    rowsWritten: 7,
    rowsRejected: 0,
    failureBodies: 0,
    warnings: [],
    untyped: [
      { field: "count", expected: "integer", count: 2, examples: ['"n/a"'] },
      { field: "percentage", expected: "number", count: 1, examples: ['"12,5"'] },
    ],
    timings: { fetchMs: 300, normaliseMs: 0, writeMs: 100 },
    durationMs: 400,
    error: new Error("boom"),
  });
  metrics.setSources({
    requestRate: () => Promise.resolve({ requestsPerSecond: 11, source: "probe", refusedAt: 13 }),
    queueCounts: () => Promise.resolve({ waiting: 3, active: 1, failed: 2 }),
    streams: () =>
      Promise.resolve([
        {
          stream: "sales_trends",
          family: "trends",
          lastSuccessAt: new Date("2026-01-03T10:15:30Z"),
          lastDay: "2026-01-02",
          failedPartitions: 1,
          rejectedRecords: 4,
          uncertainPartitions: 2,
          unreadPartitions: 3,
        },
        {
          stream: "catalogue_territories",
          family: "catalogue",
          lastSuccessAt: new Date("2026-01-03T03:20:00.500Z"),
          lastDay: null,
          failedPartitions: 0,
          rejectedRecords: 0,
          uncertainPartitions: 0,
          unreadPartitions: 0,
        },
        {
          stream: "never_synced",
          family: null,
          lastSuccessAt: null,
          lastDay: null,
          failedPartitions: 2,
          rejectedRecords: 5,
          uncertainPartitions: 0,
          unreadPartitions: 1,
        },
      ]),
    schemaChanges: () =>
      Promise.resolve([
        { table: "catalogue.dsps", change: "added", count: 2 },
        { table: "catalogue.dsps", change: "widened", count: 1 },
        { table: "sales.trend_totals", change: "added", count: 3 },
      ]),
    credentialRefused: () => true,
    dependencies: () => [
      { name: "postgres", up: true, since: new Date("2026-01-03T09:00:00Z") },
      { name: "redis", up: false, since: new Date("2026-01-03T10:20:00.250Z") },
    ],
  });
  return metrics;
}

let servers: OperatorServer[] = [];

async function serve(metrics: EtlMetrics): Promise<OperatorServer> {
  const server = await startOperatorServer({
    host: "127.0.0.1",
    port: 0,
    metrics,
    checks: {},
    queues: [],
    logger,
  });
  servers.push(server);
  return server;
}

async function scrape(server: OperatorServer): Promise<{ contentType: string; text: string }> {
  const response = await fetch(`${server.url}/metrics`);
  expect(response.status).toBe(200);
  return { contentType: response.headers.get("content-type") ?? "", text: await response.text() };
}

afterEach(async () => {
  await Promise.all(servers.map((server) => server.close()));
  servers = [];
});

describe("/metrics", () => {
  it("exports every ETL metric with its labels, and the process metrics", async () => {
    const metrics = observedMetrics();
    const { contentType, text } = await scrape(await serve(metrics));
    expect(contentType).toBe(metrics.registry.contentType);
    for (const name of METRIC_NAMES) expect(text).toContain(`# TYPE ${name} `);
    expect(text).toContain("process_cpu_user_seconds_total");

    const lines = text.split("\n");
    expect(lines).toEqual(
      expect.arrayContaining([
        `etl_http_requests_total{operation="${OPERATION}",status="200"} 2`,
        `etl_http_requests_total{operation="${OPERATION}",status="429"} 1`,
        `etl_http_requests_total{operation="trends.sales",status="NetworkError"} 1`,
        `etl_http_retries_total{operation="${OPERATION}"} 1`,
        `etl_upstream_failure_bodies_total{operation="royalties.getInvoice"} 1`,
        `etl_http_request_duration_seconds_count{operation="${OPERATION}"} 3`,
        `etl_http_request_duration_seconds_sum{operation="${OPERATION}"} 1`,
        `etl_rows_written_total{stream="catalogue_territories"} 40`,
        `etl_rows_written_total{stream="sales_trends"} 7`,
        `etl_untyped_values_total{stream="catalogue_territories"} 0`,
        `etl_untyped_values_total{stream="sales_trends"} 3`,
        `etl_phase_seconds_total{stream="catalogue_territories",phase="fetch"} 1.5`,
        `etl_phase_seconds_total{stream="catalogue_territories",phase="normalise"} 0.25`,
        `etl_phase_seconds_total{stream="catalogue_territories",phase="write"} 0.75`,
        `etl_phase_seconds_total{stream="sales_trends",phase="write"} 0.1`,
        `etl_partition_duration_seconds_count{stream="catalogue_territories",status="succeeded"} 1`,
        `etl_partition_duration_seconds_bucket{le="5",stream="catalogue_territories",status="succeeded"} 1`,
        `etl_partition_duration_seconds_count{stream="sales_trends",status="failed"} 1`,
        `etl_partition_duration_seconds_count{stream="catalogue_territories",status="failed"} 0`,
        `etl_rejected_records_total{stream="catalogue_territories"} 0`,
        `etl_partition_warnings_total{stream="catalogue_territories",kind="truncated"} 0`,
        `etl_jobs_stalled_total 1`,
        `etl_queue_jobs{state="waiting"} 3`,
        `etl_queue_jobs{state="active"} 1`,
        `etl_queue_jobs{state="failed"} 2`,
        `etl_queue_jobs{state="delayed"} 0`,
        `etl_queue_jobs{state="completed"} 0`,
        `etl_queue_jobs{state="waiting-children"} 0`,
        `etl_queue_jobs{state="prioritized"} 0`,
        `etl_stream_last_success_timestamp_seconds{stream="sales_trends",family="trends"} 1767435330`,
        `etl_stream_last_success_timestamp_seconds{stream="catalogue_territories",family="catalogue"} 1767410400.5`,
        `etl_stream_last_day_timestamp_seconds{stream="sales_trends",family="trends"} 1767312000`,
        `etl_stream_failed_partitions{stream="sales_trends",family="trends"} 1`,
        `etl_stream_failed_partitions{stream="catalogue_territories",family="catalogue"} 0`,
        `etl_stream_failed_partitions{stream="never_synced",family=""} 2`,
        `etl_stream_rejected_records{stream="sales_trends",family="trends"} 4`,
        `etl_stream_rejected_records{stream="catalogue_territories",family="catalogue"} 0`,
        `etl_stream_rejected_records{stream="never_synced",family=""} 5`,
        `etl_stream_uncertain_partitions{stream="sales_trends",family="trends"} 2`,
        `etl_stream_uncertain_partitions{stream="catalogue_territories",family="catalogue"} 0`,
        `etl_stream_unread_partitions{stream="sales_trends",family="trends"} 3`,
        `etl_stream_unread_partitions{stream="never_synced",family=""} 1`,
        `etl_stream_schedule_interval_seconds{stream="sales_trends",family="trends"} 3600`,
        `etl_request_rate_limit{source="probe"} 11`,
        `etl_request_rate_refused{source="probe"} 13`,
        `etl_request_rate_changes_total{direction="up"} 2`,
        `etl_request_rate_changes_total{direction="down"} 1`,
        `etl_upstream_credential_refused 1`,
        `etl_dependency_up{dependency="postgres"} 1`,
        `etl_dependency_up{dependency="redis"} 0`,
        `etl_dependency_last_change_timestamp_seconds{dependency="postgres"} 1767430800`,
        `etl_dependency_last_change_timestamp_seconds{dependency="redis"} 1767435600.25`,
        `etl_metrics_source_stale{source="queue"} 0`,
        `etl_metrics_source_stale{source="streams"} 0`,
        `etl_metrics_source_stale{source="schema_changes"} 0`,
        `# TYPE etl_schema_changes_total counter`,
        `etl_schema_changes_total{table="catalogue.dsps",change="added"} 2`,
        `etl_schema_changes_total{table="catalogue.dsps",change="widened"} 1`,
        `etl_schema_changes_total{table="sales.trend_totals",change="added"} 3`,
      ]),
    );
    expect(text).toMatch(
      /^etl_build_info\{version="\d+\.\d+\.\d+[^"]*",node_version="v\d+[^"]*"\} 1$/m,
    );
    // A stream without a time to measure from has no series rather than a made-up one.
    expect(text).not.toContain(
      'etl_stream_last_day_timestamp_seconds{stream="catalogue_territories"',
    );
    expect(text).not.toContain('_timestamp_seconds{stream="never_synced"');
    expect(text).not.toContain('_interval_seconds{stream="catalogue_territories"');
    expect(text).not.toContain("Bearer");
    expect(text).not.toContain("http://");
  });

  it("passes promtool's lint (names, units, suffixes, help) for every etl_ metric", async () => {
    const lint = (exposition: string) =>
      runPromtool(["check", "metrics"], exposition)
        .output.split("\n")
        .filter((line) => line.startsWith("etl_"));
    // What a problem looks like, so that an empty list means none rather than none understood.
    expect(lint("# TYPE etl_jobs_count counter\netl_jobs_count 1\n")).toContain(
      'etl_jobs_count counter metrics should have "_total" suffix',
    );
    expect(lint((await scrape(await serve(observedMetrics()))).text)).toEqual([]);
  });

  it("reads the sources at every scrape, and a failing or hanging one costs only its metric", async () => {
    const metrics = createEtlMetrics({ sourceTimeoutMs: 100 });
    let waiting = 1;
    metrics.setSources({ queueCounts: () => Promise.resolve({ waiting }) });
    const server = await serve(metrics);
    expect((await scrape(server)).text).toContain('etl_queue_jobs{state="waiting"} 1');
    waiting = 5;
    expect((await scrape(server)).text).toContain('etl_queue_jobs{state="waiting"} 5');

    metrics.setSources({ requestRate: () => Promise.reject(new Error("Connection is closed.")) });
    const { text } = await scrape(server);
    expect(text).toContain("process_cpu_user_seconds_total");
    expect(text).toContain('etl_queue_jobs{state="waiting"} 5');
    // The budget's rate lives in Redis: while it cannot be read, nothing is allowed at any rate.
    expect(text).not.toMatch(/^etl_request_rate_limit/m);
  });

  it("keeps the last values of a source that fails or hangs, says so, and reads it again", async () => {
    const lines: string[] = [];
    const logger = createLogger({
      level: "info",
      secrets: [],
      destination: { write: (line: string) => lines.push(line) },
    });
    const metrics = createEtlMetrics({ sourceTimeoutMs: 100, logger });
    const sample = (stream: string, failed: number) => ({
      stream,
      family: "trends",
      lastSuccessAt: new Date("2026-01-03T10:00:00Z"),
      lastDay: "2026-01-02",
      failedPartitions: failed,
      rejectedRecords: failed + 1,
      uncertainPartitions: failed,
      unreadPartitions: 1,
    });
    let queueCounts = () => Promise.resolve({ waiting: 4, failed: 1 });
    let streams = () => Promise.resolve([sample("trend_items", 2), sample("trend_totals", 0)]);
    metrics.setSources({ queueCounts: () => queueCounts(), streams: () => streams() });
    const server = await serve(metrics);
    const figures = (text: string) =>
      text.split("\n").filter((line) => /^etl_(queue_jobs|stream_)\S*\{/.test(line));
    const read = await scrape(server);
    expect(figures(read.text)).toHaveLength(QUEUE_STATES.length + 6 * 2);
    expect(read.text).toMatch(/^etl_metrics_source_stale\{source="queue"\} 0$/m);
    expect(read.text).toMatch(/^etl_metrics_source_stale\{source="streams"\} 0$/m);

    // Redis refuses, Postgres hangs: every series stays, with its value, for as many scrapes.
    queueCounts = () => Promise.reject(new Error("Connection is closed."));
    streams = () => new Promise(() => undefined);
    for (let scrapes = 0; scrapes < 3; scrapes++) {
      const { text } = await scrape(server);
      expect(figures(text)).toEqual(figures(read.text));
      expect(text).toMatch(/^etl_metrics_source_stale\{source="queue"\} 1$/m);
      expect(text).toMatch(/^etl_metrics_source_stale\{source="streams"\} 1$/m);
    }
    // Said once per source when it starts failing, not at every scrape.
    const warnings = lines.filter((line) => line.includes("keep the values last read"));
    expect(warnings.map((line) => (JSON.parse(line) as { source: string }).source)).toEqual([
      "queue",
      "streams",
    ]);

    // Back: the values are read again, and a stream no longer known goes.
    queueCounts = () => Promise.resolve({ waiting: 0, failed: 1 });
    streams = () => Promise.resolve([sample("trend_items", 0)]);
    const { text } = await scrape(server);
    expect(text).toMatch(/^etl_queue_jobs\{state="waiting"\} 0$/m);
    expect(text).toMatch(
      /^etl_stream_failed_partitions\{stream="trend_items",family="trends"\} 0$/m,
    );
    expect(text).not.toContain('stream="trend_totals"');
    expect(text).toMatch(/^etl_metrics_source_stale\{source="queue"\} 0$/m);
    expect(text).toMatch(/^etl_metrics_source_stale\{source="streams"\} 0$/m);
    expect(lines.filter((line) => line.includes("metrics source reads again"))).toHaveLength(2);
  });

  it("has nothing to keep for a source that has not read since the start", async () => {
    const metrics = createEtlMetrics({ sourceTimeoutMs: 100 });
    expect(await metrics.registry.metrics()).not.toMatch(/^etl_metrics_source_stale\{/m);
    metrics.setSources({
      queueCounts: () => Promise.reject(new Error("Connection is closed.")),
      streams: () => Promise.reject(new Error("connect ECONNREFUSED 127.0.0.1:5432")),
    });
    const text = await metrics.registry.metrics();
    expect(text).not.toMatch(/^etl_queue_jobs\{/m);
    expect(text).not.toMatch(/^etl_stream_\w+\{/m);
    expect(text).toMatch(/^etl_metrics_source_stale\{source="queue"\} 1$/m);
    expect(text).toMatch(/^etl_metrics_source_stale\{source="streams"\} 1$/m);
  });

  it("says whether each dependency answers and since when, once it has been probed", async () => {
    const metrics = createEtlMetrics();
    let standings = [
      { name: "postgres", up: false, since: null },
      { name: "redis", up: false, since: null },
    ] as { name: string; up: boolean; since: Date | null }[];
    metrics.setSources({ dependencies: () => standings });
    // Not probed yet: neither up nor down.
    expect(await metrics.registry.metrics()).not.toMatch(/^etl_dependency_\w+\{/m);
    standings = [
      { name: "postgres", up: false, since: new Date("2026-01-03T10:00:00Z") },
      { name: "redis", up: true, since: new Date("2026-01-03T09:00:00Z") },
    ];
    const lines = (await metrics.registry.metrics()).split("\n");
    expect(lines.filter((line) => line.startsWith("etl_dependency_"))).toEqual([
      'etl_dependency_up{dependency="postgres"} 0',
      'etl_dependency_up{dependency="redis"} 1',
      'etl_dependency_last_change_timestamp_seconds{dependency="postgres"} 1767434400',
      'etl_dependency_last_change_timestamp_seconds{dependency="redis"} 1767430800',
    ]);
  });

  it("reads the streams once per scrape for all their gauges, and the credential's state", async () => {
    const metrics = createEtlMetrics();
    expect(await metrics.registry.metrics()).not.toMatch(/^etl_upstream_credential_refused /m);
    let reads = 0;
    let refused = false;
    metrics.setSources({
      streams: () => {
        reads += 1;
        return Promise.resolve([
          {
            stream: "trend_items",
            family: "trends",
            lastSuccessAt: new Date("2026-01-03T10:00:00Z"),
            lastDay: "2026-01-02",
            failedPartitions: 0,
            rejectedRecords: 0,
            uncertainPartitions: 0,
            unreadPartitions: 0,
          },
        ]);
      },
      credentialRefused: () => refused,
    });
    const server = await serve(metrics);
    const first = (await scrape(server)).text;
    for (const gauge of ["last_day_timestamp_seconds", "rejected_records", "unread_partitions"]) {
      expect(first).toMatch(new RegExp(`^etl_stream_${gauge}\\{stream="trend_items"`, "m"));
    }
    expect(first).toMatch(/^etl_upstream_credential_refused 0$/m);
    refused = true;
    expect((await scrape(server)).text).toMatch(/^etl_upstream_credential_refused 1$/m);
    expect(reads).toBe(2);
  });

  it("has the counters of declared streams at 0 before their first partition", async () => {
    // increase() sees a counter's first step only if the series existed before it.
    const text = await createEtlMetrics({ streams: ["trend_items"] }).registry.metrics();
    expect(text.split("\n")).toEqual(
      expect.arrayContaining([
        'etl_rejected_records_total{stream="trend_items"} 0',
        'etl_partition_warnings_total{stream="trend_items",kind="truncated"} 0',
        'etl_partition_warnings_total{stream="trend_items",kind="no_list"} 0',
        'etl_partition_warnings_total{stream="trend_items",kind="ambiguous"} 0',
        'etl_partition_duration_seconds_count{stream="trend_items",status="failed"} 0',
      ]),
    );
  });

  it("keeps each instance's metrics in its own registry", async () => {
    const first = createEtlMetrics();
    const second = createEtlMetrics();
    first.observeTry({ operation: "a.b", outcome: 200, durationMs: 1, tryNumber: 1 });
    expect(await first.registry.metrics()).toContain('etl_http_requests_total{operation="a.b"');
    expect(await second.registry.metrics()).not.toContain('operation="a.b"');
  });
});

describe("/metrics fed by the real HTTP client", () => {
  const metrics = createEtlMetrics();
  let upstream: Awaited<ReturnType<typeof startUpstream>>;

  beforeAll(async () => {
    upstream = await startUpstream("operator-metrics", {
      http: {
        onTry: (event) => {
          metrics.observeTry(event);
          // Only the first try meets the fault; the retry finds the upstream healthy.
          upstream.sandbox.setKnobs({ faultRate: 0 });
        },
      },
    });
  });

  afterAll(() => upstream?.close());

  it("counts a connection reset and its retry, with neither the key nor a URL in a label", async () => {
    upstream.sandbox.setKnobs({ faultRate: 1, faults: ["reset"] });
    await upstream.context.api.call(getTerritoriesOperation, { key: "all" });

    const { text } = await scrape(await serve(metrics));
    expect(text).toMatch(
      /^etl_http_requests_total\{operation="[\w.]+",status="NetworkError"\} 1$/m,
    );
    expect(text).toMatch(/^etl_http_requests_total\{operation="[\w.]+",status="200"\} 1$/m);
    expect(text).toMatch(/^etl_http_retries_total\{operation="[\w.]+"\} 1$/m);
    expect(text).not.toContain(upstream.sandbox.apiKey);
    expect(text).not.toContain("Bearer");
    expect(text).not.toContain("http://");
  });
});
