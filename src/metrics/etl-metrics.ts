import { collectDefaultMetrics, Gauge, Registry } from "prom-client";
import type { RateChange } from "../http/auto-rate.js";
import type { HttpTryEvent } from "../http/http-messages.js";
import type { StreamSchedule } from "../config/schedule-interval.js";
import type { Logger } from "../logging/logger.js";
import type { PartitionOutcome } from "../runner/partition-outcome.js";
import { packageVersion } from "../package-version.js";
import { registerGateGauges } from "./gate-gauges.js";
import { KeptReading } from "./kept-reading.js";
import { label } from "./metric-label.js";
import type { MetricSources } from "./metric-sources.js";
import { registerPartitionMetrics } from "./partition-metrics.js";
import { registerQueueGauges } from "./queue-gauges.js";
import { registerRateGauges } from "./rate-gauges.js";
import { scrapeReader } from "./scrape-reader.js";
import { registerScheduleGauges, registerStreamGauges } from "./stream-gauges.js";
import { registerUpstreamMetrics } from "./upstream-metrics.js";
import { registerDisagreements, registerSchemaChanges } from "./warehouse-counts.js";

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
  observeTry(event: HttpTryEvent): void;
  observePartition(outcome: PartitionOutcome): void;
  /** A job this worker found stalled (its lock expired while active) and handed back. */
  observeStalledJob(): void;
  /** A change of the shared request rate one of this process's answers made. */
  observeRateChange(change: RateChange): void;
  /** Sets the sources given; a source left out keeps its current value. */
  setSources(sources: MetricSources): void;
}

/** Every metric the worker exports; what each one says is in docs/operations.md. */
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

  const upstream = registerUpstreamMetrics(registry);
  const partitions = registerPartitionMetrics(registry);
  registerScrapeGauges(registry, () => sources, options);
  for (const stream of options.streams ?? []) partitions.initialise(stream);

  return {
    registry,
    observeTry: (event) => upstream.observeTry(event),
    observeRateChange: (change) => upstream.observeRateChange(change),
    observeStalledJob: () => partitions.observeStalledJob(),
    observePartition: (outcome) => partitions.observePartition(outcome),
    setSources(next) {
      sources = { ...sources, ...definedOnly(next) };
    },
  };
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
  registerStreamGauges(registry, streamsReading);
  registerRateGauges(
    registry,
    scrapeReader("requestRate", () => sources().requestRate, kept),
  );
  registerGateGauges(registry, sources, kept);
}

function registerSourceStale(registry: Registry, readings: readonly KeptReading<unknown>[]): void {
  const sourceStale: Gauge<"source"> = new Gauge({
    name: "etl_metrics_source_stale",
    help: "1 while the last read of a scrape-time source failed and its metrics show older values.",
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

function definedOnly(sources: MetricSources): MetricSources {
  return Object.fromEntries(Object.entries(sources).filter(([, value]) => value !== undefined));
}
