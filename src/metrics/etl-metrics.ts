import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";
import type { CurrentRate, RateChange } from "../http/auto-rate.js";
import type { HttpAttemptEvent } from "../http/http-client.js";
import { type StreamSchedule, staleAfterSeconds } from "../config/schedule-interval.js";
import type { Logger } from "../logging/logger.js";
import { withTimeout } from "../async/with-timeout.js";
import type { OutageStanding } from "../http/upstream-outage.js";
import type { PartitionOutcome } from "../streams/partition-outcome.js";
import type { PageWarning } from "../streams/partition.js";
import { packageVersion } from "../package-version.js";
import { errorMessage } from "../errors.js";
import { KeptReading, type KeptReadingOptions } from "./kept-reading.js";

/** BullMQ's `queue.getJobCounts()`: job state → count. */
export type QueueCountsSource = () => Promise<Record<string, number>>;

/** Where one stream stands, from etl.stream_state. */
export interface StreamSample {
  readonly stream: string;
  /** Its family, whose schedule sets how stale it may get; null for a stream no longer declared. */
  readonly family: string | null;
  readonly lastSuccessAt: Date | null;
  /** The latest day (YYYY-MM-DD) a daily partition of the stream synced; null when not daily. */
  readonly lastDay: string | null;
  /** Partitions that failed for good: last attempt failed, and no job will try again. */
  readonly failedPartitions: number;
  /** Records of the stream waiting in quarantine (etl.rejected_records). */
  readonly rejectedRecords: number;
  /** Partitions whose last success left a list uncertain (truncated, no list, ambiguous). */
  readonly uncertainPartitions: number;
  /** Partitions whose latest load left values or records its readers could not read. */
  readonly unreadPartitions: number;
}

export type StreamsSource = () => Promise<readonly StreamSample[]>;

/** The rate the shared request budget allows now (RequestBudget.currentRate). */
export type RequestRateSource = () => Promise<CurrentRate>;

/** Whether the upstream refuses the worker's credential now (CredentialGate.refused). */
export type CredentialSource = () => boolean;

/** What the worker last found of one of its dependencies (DependencyGate.standings). */
export interface DependencySample {
  /** postgres or redis. */
  readonly name: string;
  readonly up: boolean;
  /** Since when it has been as it is (up or away); null until first probed. */
  readonly since: Date | null;
}

export type DependenciesSource = () => readonly DependencySample[];

/** How many columns of a table were added, or widened, from the first (etl.schema_changes). */
export interface SchemaChangeSample {
  readonly table: string;
  readonly change: "added" | "widened";
  readonly count: number;
}

export type SchemaChangesSource = () => Promise<readonly SchemaChangeSample[]>;

/** How many days' trends readings of a selection and sale type disagree (etl.reading_checks). */
export interface DisagreementSample {
  readonly selectionType: string;
  readonly saleType: string;
  readonly days: number;
}

export type DisagreementsSource = () => Promise<readonly DisagreementSample[]>;

export interface MetricSources {
  /** Read from Redis: while it is away, etl_queue_jobs keeps the counts last read. */
  readonly queueCounts?: QueueCountsSource;
  /** BullMQ's count of the workers connected to the queue, read from Redis. */
  readonly workers?: () => Promise<number>;
  /** Read from Postgres: while it is away, the etl_stream_ gauges keep the values last read. */
  readonly streams?: StreamsSource;
  /** Read from Postgres: while it is away, etl_schema_changes_total keeps the counts last read. */
  readonly schemaChanges?: SchemaChangesSource;
  /** Read from Postgres: while it is away, etl_reading_disagreements keeps the counts last read. */
  readonly disagreements?: DisagreementsSource;
  readonly requestRate?: RequestRateSource;
  readonly credentialRefused?: CredentialSource;
  readonly dependencies?: DependenciesSource;
  /** Read from Redis: the upstream's outage, null while it is not declared down. */
  readonly upstreamOutage?: () => Promise<OutageStanding | null>;
  /** How many retries of this process waited for the retry budget. */
  readonly retriesWaited?: () => number;
}

export interface EtlMetricsOptions {
  /**
   * Told when a scrape-time source fails (the scrape still answers, with the values last read or
   * without that metric), and when a source that failed reads again.
   */
  readonly logger?: Logger;
  /** Longest wait for one scrape-time source. Default 2000 ms. */
  readonly sourceTimeoutMs?: number;
  /**
   * Streams whose per-stream counters exist at 0 from the start. increase() cannot see the step
   * of a series born at 1, so the first rejection or warning after a restart would go unseen.
   */
  readonly streams?: readonly string[];
  /**
   * The streams whose family has a schedule, with its interval: how stale a stream may get
   * follows from it (EtlStreamStale), whatever the config's patterns.
   */
  readonly schedules?: readonly StreamSchedule[];
}

export interface EtlMetrics {
  /** Its own registry, so several instances (tests, several workers in one process) coexist. */
  readonly registry: Registry;
  observeAttempt(event: HttpAttemptEvent): void;
  observePartition(outcome: PartitionOutcome): void;
  /** A job this worker found stalled (its lock expired while active) and handed back. */
  observeStalledJob(): void;
  /** A change of the shared request rate one of this process's answers made. */
  observeRateChange(change: RateChange): void;
  /** Sets the sources given; a source left out keeps its current value. */
  setSources(sources: MetricSources): void;
}

/** How long one read of a scrape-time source serves the gauges that show it: within one scrape. */
const SCRAPE_READ_REUSE_MS = 500;

/** The states BullMQ counts by default: always exported, so a state at 0 is a series at 0. */
export const QUEUE_STATES = [
  "waiting",
  "active",
  "delayed",
  "failed",
  "completed",
  "waiting-children",
  "prioritized",
] as const;

// Keyed by every kind of the union: the compiler fails here when a kind is added or renamed.
const WARNING_KINDS = Object.keys({
  truncated: true,
  no_list: true,
  ambiguous: true,
  untyped: true,
  unmatched: true,
} satisfies Record<PageWarning["kind"], true>);

// Upstream calls take tens of milliseconds to tens of seconds (the request timeout is 30 s).
const HTTP_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
// A partition is one page or hundreds, under a shared request budget of a few per second.
const PARTITION_BUCKETS = [1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600];

export function createEtlMetrics(options: EtlMetricsOptions = {}): EtlMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  let sources: MetricSources = {};

  new Gauge({
    name: "etl_build_info",
    help: "Always 1; the labels say which release and Node.js version the process runs.",
    labelNames: ["version", "node_version"] as const,
    registers: [registry],
  }).set({ version: label(packageVersion()), node_version: label(process.version) }, 1);

  const upstream = registerUpstreamCounters(registry);
  const partitions = registerPartitionCounters(registry);
  registerScrapeGauges(registry, () => sources, options);

  const initialise = streamInitialiser(partitions);
  for (const stream of options.streams ?? []) initialise(label(stream));

  return {
    registry,
    observeAttempt(event) {
      const operation = label(event.operation);
      upstream.requests.inc({ operation, status: label(String(event.outcome)) });
      if (event.failureBody !== undefined) upstream.failureBodies.inc({ operation });
      if (event.attempt > 1) upstream.retries.inc({ operation });
      upstream.requestDuration.observe({ operation }, event.durationMs / 1000);
    },
    observeStalledJob() {
      partitions.stalledJobs.inc();
    },
    observeRateChange(change) {
      upstream.rateChanges.inc({ direction: change.to > change.from ? "up" : "down" });
    },
    observePartition(outcome) {
      const stream = label(outcome.stream);
      initialise(stream);
      countPartition(partitions, stream, outcome);
    },
    setSources(next) {
      sources = { ...sources, ...definedOnly(next) };
    },
  };
}

/** The counters and histogram of upstream HTTP attempts, incremented as each attempt ends. */
function registerUpstreamCounters(registry: Registry) {
  const requests = new Counter({
    name: "etl_http_requests_total",
    help: 'Upstream HTTP attempts, by operation and HTTP status (or error name when none came back); status="429" counts the rate-limited ones.',
    labelNames: ["operation", "status"] as const,
    registers: [registry],
  });
  const failureBodies = new Counter({
    name: "etl_upstream_failure_bodies_total",
    help: "Upstream 2xx answers whose body declares failure ({status: false, message} and the like), by operation: retried, never stored.",
    labelNames: ["operation"] as const,
    registers: [registry],
  });
  const rateChanges = new Counter({
    name: "etl_request_rate_changes_total",
    help: 'Changes of the shared request rate this process\'s answers made (requests_per_second "auto"), by direction: up (probing raised it, or the upstream stated a higher limit) or down (a 429, or a lower stated limit).',
    labelNames: ["direction"] as const,
    registers: [registry],
  });
  for (const direction of ["up", "down"]) rateChanges.inc({ direction }, 0);
  const retries = new Counter({
    name: "etl_http_retries_total",
    help: "Upstream attempts after the first of a request.",
    labelNames: ["operation"] as const,
    registers: [registry],
  });
  const requestDuration = new Histogram({
    name: "etl_http_request_duration_seconds",
    help: "Duration of one upstream attempt, from sending to the whole body (budget wait excluded).",
    labelNames: ["operation"] as const,
    buckets: HTTP_BUCKETS,
    registers: [registry],
  });
  return { requests, failureBodies, rateChanges, retries, requestDuration };
}

/**
 * The counters and histogram of partition jobs, incremented as each partition ends (or its job is
 * found stalled).
 */
function registerPartitionCounters(registry: Registry) {
  const rowsWritten = new Counter({
    name: "etl_rows_written_total",
    help: "Warehouse rows inserted, updated or deleted, by stream.",
    labelNames: ["stream"] as const,
    registers: [registry],
  });
  const untypedValues = new Counter({
    name: "etl_untyped_values_total",
    help: "Upstream values a typed column could not hold (kept in raw JSON), by stream.",
    labelNames: ["stream"] as const,
    registers: [registry],
  });
  const rejectedRecords = new Counter({
    name: "etl_rejected_records_total",
    help: "Upstream records that yielded no storable row and were quarantined in etl.rejected_records, by stream.",
    labelNames: ["stream"] as const,
    registers: [registry],
  });
  const partitionWarnings = new Counter({
    name: "etl_partition_warnings_total",
    help: "Partitions that ended with something uncertain, by stream and kind: truncated (the response says the list holds more than was read), no_list (no list found in a response), ambiguous (several lists in one response).",
    labelNames: ["stream", "kind"] as const,
    registers: [registry],
  });
  const stalledJobs = new Counter({
    name: "etl_jobs_stalled_total",
    help: "Jobs whose lock expired while they were active (their worker died, or its event loop was blocked past job_lock_ms), found by this worker and handed back to the queue.",
    registers: [registry],
  });
  const phaseSeconds = new Counter({
    name: "etl_phase_seconds_total",
    help: "Time partitions spent fetching pages, normalising records into rows and writing them, by stream.",
    labelNames: ["stream", "phase"] as const,
    registers: [registry],
  });
  const partitionDuration = new Histogram({
    name: "etl_partition_duration_seconds",
    help: "Duration of one partition sync, by stream and outcome (succeeded, failed, interrupted); its _count counts partitions by outcome.",
    labelNames: ["stream", "status"] as const,
    buckets: PARTITION_BUCKETS,
    registers: [registry],
  });
  return {
    rowsWritten,
    untypedValues,
    rejectedRecords,
    partitionWarnings,
    stalledJobs,
    phaseSeconds,
    partitionDuration,
  };
}

type PartitionCounters = ReturnType<typeof registerPartitionCounters>;

/** Creates a stream's counters at 0, once, so that their first step is an increase. */
function streamInitialiser(counters: PartitionCounters): (stream: string) => void {
  const initialised = new Set<string>();
  return (stream) => {
    if (initialised.has(stream)) return;
    initialised.add(stream);
    counters.rowsWritten.inc({ stream }, 0);
    counters.untypedValues.inc({ stream }, 0);
    counters.rejectedRecords.inc({ stream }, 0);
    for (const kind of WARNING_KINDS) counters.partitionWarnings.inc({ stream, kind }, 0);
    // The failed series only: it is the one whose first step matters (the others are born with
    // the stream's first partitions, failures much later if ever).
    counters.partitionDuration.zero({ stream, status: "failed" });
  };
}

function countPartition(
  counters: PartitionCounters,
  stream: string,
  outcome: PartitionOutcome,
): void {
  // A failed partition may have committed pages before it failed: those rows were written.
  counters.rowsWritten.inc({ stream }, outcome.rowsWritten);
  counters.untypedValues.inc(
    { stream },
    outcome.untyped.reduce((sum, field) => sum + field.count, 0),
  );
  counters.rejectedRecords.inc({ stream }, outcome.rowsRejected);
  for (const kind of new Set(outcome.warnings.map((warning) => warning.kind))) {
    counters.partitionWarnings.inc({ stream, kind });
  }
  const { fetchMs, normaliseMs, writeMs } = outcome.timings;
  counters.phaseSeconds.inc({ stream, phase: "fetch" }, fetchMs / 1000);
  counters.phaseSeconds.inc({ stream, phase: "normalise" }, normaliseMs / 1000);
  counters.phaseSeconds.inc({ stream, phase: "write" }, writeMs / 1000);
  counters.partitionDuration.observe({ stream, status: outcome.status }, outcome.durationMs / 1000);
}

/**
 * The gauges, collected when Prometheus scrapes from the sources set by then (`sources`), but for
 * the schedule's, which the config sets once.
 */
function registerScrapeGauges(
  registry: Registry,
  sources: () => MetricSources,
  options: EtlMetricsOptions,
): void {
  /**
   * The sources read from a dependency at scrape time. A read that fails (the dependency away, or
   * slower than sourceTimeoutMs) keeps the values of the last read that succeeded, so the alerts
   * that read them neither lose their series nor resolve during an outage; etl_metrics_source_stale
   * says so. A process that has read nothing since it started has nothing to keep.
   */
  const kept = { timeoutMs: options.sourceTimeoutMs ?? 2000, logger: options.logger };
  const queueReading = new KeptReading("queue", () => sources().queueCounts, kept);
  const streamsReading = new KeptReading("streams", () => sources().streams, kept);
  const workersReading = new KeptReading("workers", () => sources().workers, kept);
  const changesReading = new KeptReading("schema_changes", () => sources().schemaChanges, kept);
  const readingsReading = new KeptReading("readings", () => sources().disagreements, kept);

  registerQueueGauges(registry, queueReading, workersReading);
  registerSourceStale(registry, [
    queueReading,
    streamsReading,
    workersReading,
    changesReading,
    readingsReading,
  ]);
  registerSchemaChanges(registry, changesReading);
  registerDisagreements(registry, readingsReading);
  registerScheduleGauges(registry, options.schedules ?? []);
  for (const gauge of STREAM_GAUGES) registerStreamGauge(registry, streamsReading, gauge);
  registerRequestRateGauges(
    registry,
    scrapeReader("requestRate", () => sources().requestRate, kept),
  );
  registerCredentialGauge(registry, sources);
  registerDependencyGauges(registry, sources);
  registerOutageGauges(registry, sources, kept);
}

/** etl_queue_jobs and etl_workers, read from Redis. */
function registerQueueGauges(
  registry: Registry,
  queueReading: KeptReading<Record<string, number>>,
  workersReading: KeptReading<number>,
): void {
  const queueJobs: Gauge<"state"> = new Gauge({
    name: "etl_queue_jobs",
    help: "Jobs in the queue by state, read from Redis at scrape time; while Redis does not answer, the counts last read (etl_metrics_source_stale says so).",
    labelNames: ["state"] as const,
    registers: [registry],
    collect: async () => {
      await queueReading.read();
      // Reset first: a state no longer counted must not stay exported.
      queueJobs.reset();
      const counts = queueReading.value;
      if (!counts) return;
      const byState = new Map<string, number>(QUEUE_STATES.map((state) => [state, 0]));
      for (const [state, count] of Object.entries(counts)) {
        // getJobCounts("wait") names the waiting list by its Redis key.
        const name = label(state === "wait" ? "waiting" : state);
        byState.set(name, (byState.get(name) ?? 0) + count);
      }
      for (const [state, count] of byState) queueJobs.set({ state }, count);
    },
  });

  const workers: Gauge = new Gauge({
    name: "etl_workers",
    help: "Workers connected to the queue, every process's (BullMQ counts their connections), read from Redis at scrape time; while Redis does not answer, the count last read (etl_metrics_source_stale says so). 0 while jobs wait: nothing runs them.",
    registers: [registry],
    collect: async () => {
      await workersReading.read();
      workers.reset();
      if (workersReading.value !== undefined) workers.set(workersReading.value);
    },
  });
}

function registerSourceStale(registry: Registry, readings: readonly KeptReading<unknown>[]): void {
  const sourceStale: Gauge<"source"> = new Gauge({
    name: "etl_metrics_source_stale",
    help: "1 while the last read of a scrape-time source failed (its dependency does not answer, or answered too slowly) and its metrics show the values of the last read that succeeded, or none if none has since the process started; 0 while it reads. By source: queue (etl_queue_jobs, from Redis), workers (etl_workers, from Redis), streams (the etl_stream_ gauges read from etl.stream_state and etl.rejected_records, from Postgres), schema_changes (etl_schema_changes_total, from Postgres). No series for a source the process does not read.",
    labelNames: ["source"] as const,
    registers: [registry],
    collect: async () => {
      await Promise.all(readings.map((reading) => reading.read()));
      sourceStale.reset();
      for (const reading of readings) {
        if (reading.stale !== null)
          sourceStale.set({ source: reading.name }, reading.stale ? 1 : 0);
      }
    },
  });
}

/**
 * etl_schema_changes_total: a counter, but counted by Postgres rather than by this process, so it
 * is the same in every worker and never restarts from 0 (a change made by another worker, or
 * before a restart, is in it). Not an alert's: a column added or widened is news, not a failure.
 */
function registerSchemaChanges(
  registry: Registry,
  changesReading: KeptReading<readonly SchemaChangeSample[]>,
): void {
  const changes: Counter<"table" | "change"> = new Counter({
    name: "etl_schema_changes_total",
    help: "Columns added to a table for a new upstream field, or widened for a value that needed a wider type, by table and change (added, widened), counted in etl.schema_changes at scrape time: the same in every worker, across restarts. Events, not failures: nothing was lost.",
    labelNames: ["table", "change"] as const,
    registers: [registry],
    collect: async () => {
      await changesReading.read();
      // Reset first, then the counts as Postgres has them: every worker exports the same totals.
      changes.reset();
      for (const { table, change, count } of changesReading.value ?? []) {
        changes.inc({ table: label(table), change: label(change) }, count);
      }
    },
  });
}

function registerDisagreements(
  registry: Registry,
  reading: KeptReading<readonly DisagreementSample[]>,
): void {
  const gauge: Gauge<"selection_type" | "sale_type"> = new Gauge({
    name: "etl_reading_disagreements",
    help: "Days whose three trends readings disagree (the totals, the sum of the list's items, the chart's Total), as last checked after a run, by selection and sale type (analytics.reading_checks), read from Postgres at scrape time. The data is left as received.",
    labelNames: ["selection_type", "sale_type"] as const,
    registers: [registry],
    collect: async () => {
      await reading.read();
      gauge.reset();
      for (const { selectionType, saleType, days } of reading.value ?? []) {
        gauge.set({ selection_type: label(selectionType), sale_type: label(saleType) }, days);
      }
    },
  });
}

function registerScheduleGauges(registry: Registry, schedules: readonly StreamSchedule[]): void {
  const scheduleInterval = new Gauge({
    name: "etl_stream_schedule_interval_seconds",
    help: "Longest gap between two scheduled runs of the stream's family, from its cron pattern, by stream and family; no series while the family's schedule is off.",
    labelNames: ["stream", "family"] as const,
    registers: [registry],
  });
  const staleAfter = new Gauge({
    name: "etl_stream_stale_after_seconds",
    help: "How long the stream may go without a success before it is stale (the EtlStreamStale alert's threshold; the same rule as `etl status` and analytics.stream_freshness): twice its family's longest gap between scheduled runs, by stream and family; no series while the family's schedule is off.",
    labelNames: ["stream", "family"] as const,
    registers: [registry],
  });
  for (const { stream, family, intervalSeconds } of schedules) {
    const labels = { stream: label(stream), family: label(family) };
    scheduleInterval.set(labels, intervalSeconds);
    staleAfter.set(labels, staleAfterSeconds(intervalSeconds));
  }
}

/** A gauge by stream and family: its name, the start of its help, and its value for a stream. */
interface StreamGauge {
  readonly name: string;
  readonly help: string;
  readonly value: (sample: StreamSample) => number | null;
}

const STREAM_GAUGES: readonly StreamGauge[] = [
  {
    name: "etl_stream_last_success_timestamp_seconds",
    help: "When a partition of the stream last succeeded (Unix time)",
    value: (s) => (s.lastSuccessAt ? s.lastSuccessAt.getTime() / 1000 : null),
  },
  {
    name: "etl_stream_last_day_timestamp_seconds",
    help: "Start (00:00 UTC, Unix time) of the latest day a daily partition of the stream synced; daily streams only",
    value: (s) => (s.lastDay ? Date.parse(`${s.lastDay}T00:00:00Z`) / 1000 : null),
  },
  {
    name: "etl_stream_failed_partitions",
    help: "Partitions of the stream that failed for good, their last attempt failed with no job left to try again (etl.stream_state)",
    value: (s) => s.failedPartitions,
  },
  // What waits for a fix, as it stands: the alerts on it fire for as long as it waits, however
  // long ago it came, and resolve once it is released.
  {
    name: "etl_stream_rejected_records",
    help: "Records of the stream waiting in quarantine (etl.rejected_records): they yielded no storable row, and stay until a replay stores them (a fixed reader), or a later sync of a partition that replaces its rows no longer receives them",
    value: (s) => s.rejectedRecords,
  },
  {
    name: "etl_stream_uncertain_partitions",
    help: "Partitions of the stream whose last success left a list uncertain (truncated, no_list, ambiguous), until a later success of the partition reads it whole",
    value: (s) => s.uncertainPartitions,
  },
  {
    name: "etl_stream_unread_partitions",
    help: "Partitions of the stream whose latest load left values or records its readers could not read (untyped, unmatched; kept in raw), until a load reads them all (a fixed reader replayed)",
    value: (s) => s.unreadPartitions,
  },
];

/** Set at scrape time to the value of each stream, read from Postgres. */
function registerStreamGauge(
  registry: Registry,
  streamsReading: KeptReading<readonly StreamSample[]>,
  { name, help, value }: StreamGauge,
): void {
  const gauge: Gauge<"stream" | "family"> = new Gauge({
    name,
    help: `${help}, by stream and family, read from Postgres at scrape time; while Postgres does not answer, the values last read (etl_metrics_source_stale says so).`,
    labelNames: ["stream", "family"] as const,
    registers: [registry],
    collect: async () => {
      // The stream gauges share one read per scrape.
      await streamsReading.read();
      // Reset first: a stream no longer in etl.stream_state must not stay exported.
      gauge.reset();
      for (const sample of streamsReading.value ?? []) {
        const current = value(sample);
        // No series rather than a made-up number for a stream without a time to measure from.
        if (current === null) continue;
        gauge.set({ stream: label(sample.stream), family: label(sample.family ?? "") }, current);
      }
    },
  });
}

function registerRequestRateGauges(
  registry: Registry,
  currentRate: () => Promise<CurrentRate | undefined>,
): void {
  const requestRate: Gauge<"source"> = new Gauge({
    name: "etl_request_rate_limit",
    help: 'Requests per second the shared request budget allows now, read at scrape time, by where the rate comes from: config (a fixed requests_per_second); with "auto", start (nothing learned yet), limit (the upstream\'s X-RateLimit-Limit), probe (raised while answers succeed), backoff (lowered by a 429) or ceiling (held at auto.max).',
    labelNames: ["source"] as const,
    registers: [registry],
    collect: async () => {
      // Reset first: a rate that is not known now must not be exported as 0 or as a stale one.
      requestRate.reset();
      const rate = await currentRate();
      if (rate) requestRate.set({ source: rate.source }, rate.requestsPerSecond);
    },
  });
  const requestRateRefused: Gauge<"source"> = new Gauge({
    name: "etl_request_rate_refused",
    help: 'With requests_per_second "auto" and no stated limit: the lowest rate (requests per second) that earned a 429, which probing stays under, by the source of the rate in force; absent while none has. Read at scrape time.',
    labelNames: ["source"] as const,
    registers: [registry],
    collect: async () => {
      requestRateRefused.reset();
      const rate = await currentRate();
      if (rate?.refusedAt !== undefined) {
        requestRateRefused.set({ source: rate.source }, rate.refusedAt);
      }
    },
  });
}

/**
 * A scrape-time source read once per scrape by the gauges that show it: they collect at the same
 * time. Undefined without the source, or when it failed.
 */
function scrapeReader<T>(
  name: string,
  pick: () => (() => Promise<T>) | undefined,
  options: KeptReadingOptions,
): () => Promise<T | undefined> {
  let read: { at: number; value: Promise<T | undefined> } | null = null;
  return () => {
    const source = pick();
    if (!source) return Promise.resolve(undefined);
    const now = performance.now();
    if (!read || now - read.at > SCRAPE_READ_REUSE_MS) {
      read = { at: now, value: readSource(name, source, options) };
    }
    return read.value;
  };
}

/** A failing source costs its own metric, never the whole scrape (and the process metrics). */
async function readSource<T>(
  name: string,
  source: () => Promise<T>,
  { timeoutMs, logger }: KeptReadingOptions,
): Promise<T | undefined> {
  try {
    return await withTimeout(source, timeoutMs);
  } catch (error) {
    logger?.warn(
      { source: name, err: errorMessage(error) },
      "metrics source failed; its metric is left out of this scrape",
    );
    return undefined;
  }
}

function registerCredentialGauge(registry: Registry, sources: () => MetricSources): void {
  const credentialRefused: Gauge = new Gauge({
    name: "etl_upstream_credential_refused",
    help: "1 while the upstream refuses the worker's credential (the worker takes no jobs and re-checks it), else 0; read at scrape time.",
    registers: [registry],
    collect: () => {
      const source = sources().credentialRefused;
      // Without a source, no series: an unlabelled gauge would otherwise say 0, "accepted".
      if (source) credentialRefused.set(source() ? 1 : 0);
      else credentialRefused.remove();
    },
  });
}

function registerDependencyGauges(registry: Registry, sources: () => MetricSources): void {
  const dependencyUp: Gauge<"dependency"> = new Gauge({
    name: "etl_dependency_up",
    help: "1 while the dependency (postgres, redis) answered the worker's last probe, 0 while it does not (the worker then takes no jobs); probed every 15 s, and more often while one is away. No series until first probed.",
    labelNames: ["dependency"] as const,
    registers: [registry],
    collect: () => {
      dependencyUp.reset();
      for (const { name, up, since } of sources().dependencies?.() ?? []) {
        if (since !== null) dependencyUp.set({ dependency: label(name) }, up ? 1 : 0);
      }
    },
  });
  const dependencySince: Gauge<"dependency"> = new Gauge({
    name: "etl_dependency_last_change_timestamp_seconds",
    help: "When the worker found the dependency (postgres, redis) as it is now, answering or not (Unix time): the probe that found it away or back, or the worker's first probe of it. No series until first probed.",
    labelNames: ["dependency"] as const,
    registers: [registry],
    collect: () => {
      dependencySince.reset();
      for (const { name, since } of sources().dependencies?.() ?? []) {
        if (since !== null)
          dependencySince.set({ dependency: label(name) }, since.getTime() / 1000);
      }
    },
  });
}

/** What is known of an outage, as gauges with no series while the upstream is not down. */
const OUTAGE_GAUGES: readonly {
  readonly name: string;
  readonly help: string;
  readonly value: (outage: OutageStanding) => number;
}[] = [
  {
    name: "etl_upstream_down_since_timestamp_seconds",
    help: "When the upstream was declared down (Unix time); no series while it is not.",
    value: (outage) => outage.since.getTime() / 1000,
  },
  {
    name: "etl_upstream_down_probes_failed",
    help: "Probes of the down upstream that failed so far in this outage; no series while it is not down.",
    value: (outage) => outage.probes,
  },
];

/** The upstream's outage, read from Redis once per scrape, and the retries the budget held back. */
function registerOutageGauges(
  registry: Registry,
  sources: () => MetricSources,
  options: KeptReadingOptions,
): void {
  const standing = scrapeReader("upstreamOutage", () => sources().upstreamOutage, options);
  const down: Gauge = new Gauge({
    name: "etl_upstream_down",
    help: "1 while the upstream is declared down (most requests failed: every worker takes no job and sends nothing but a probe, backing off up to 2 minutes), else 0; read from Redis at scrape time.",
    registers: [registry],
    collect: async () => {
      const outage = await standing();
      if (outage === undefined) down.remove();
      else down.set(outage ? 1 : 0);
    },
  });
  for (const { name, help, value } of OUTAGE_GAUGES) {
    const gauge: Gauge = new Gauge({
      name,
      help,
      registers: [registry],
      collect: async () => {
        const outage = await standing();
        if (outage) gauge.set(value(outage));
        else gauge.remove();
      },
    });
  }
  const waited: Counter = new Counter({
    name: "etl_retries_waited_total",
    help: "Retries of this process that waited for the retry budget (a retry costs 2 tokens, an answer refunds 1, and 1 comes back each second): the upstream failed more than the budget lets retries add to its load.",
    registers: [registry],
    collect: () => {
      const source = sources().retriesWaited;
      waited.reset();
      if (source) waited.inc(source());
    },
  });
}

/**
 * Label values are names chosen by the code (operations, streams, statuses), but a label is
 * exported to every scraper: anything outside a name's alphabet is replaced, so a URL or a
 * header value can never reach one whole, and the length is capped against cardinality accidents.
 */
function label(value: string): string {
  return value.replace(/[^A-Za-z0-9_.-]/g, "_").slice(0, 100);
}

function definedOnly(sources: MetricSources): MetricSources {
  return Object.fromEntries(Object.entries(sources).filter(([, value]) => value !== undefined));
}
