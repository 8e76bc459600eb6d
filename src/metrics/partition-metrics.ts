import { Counter, Histogram, type Registry } from "prom-client";
import type { PartitionOutcome } from "../runner/partition-outcome.js";
import type { PageWarning } from "../streams/partition.js";
import { label } from "./metric-label.js";

// Keyed by every kind of the union: the compiler fails here when a kind is added or renamed.
const WARNING_KINDS = Object.keys({
  truncated: true,
  no_list: true,
  ambiguous: true,
  untyped: true,
  unmatched: true,
} satisfies Record<PageWarning["kind"], true>);

// A partition is one page or hundreds, under a shared request budget of a few per second.
const PARTITION_BUCKETS = [1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600];

/** The counters of partition jobs, counted as each partition ends or its job is found stalled. */
export interface PartitionMetrics {
  observePartition(outcome: PartitionOutcome): void;
  observeStalledJob(): void;
  /** Creates a stream's counters at 0, once, so that their first step is an increase. */
  initialise(stream: string): void;
}

export function registerPartitionMetrics(registry: Registry): PartitionMetrics {
  const counters = partitionCounters(registry);
  const initialised = new Set<string>();
  const initialise = (stream: string): void => {
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
  return {
    initialise: (stream) => initialise(label(stream)),
    observeStalledJob: () => counters.stalledJobs.inc(),
    observePartition(outcome) {
      const stream = label(outcome.stream);
      initialise(stream);
      countPartition(counters, stream, outcome);
    },
  };
}

function partitionCounters(registry: Registry) {
  const byStream = (name: string, help: string) =>
    new Counter({ name, help, labelNames: ["stream"] as const, registers: [registry] });
  return {
    rowsWritten: byStream(
      "etl_rows_written_total",
      "Warehouse rows inserted, updated or deleted, by stream.",
    ),
    untypedValues: byStream(
      "etl_untyped_values_total",
      "Upstream values a typed column could not hold (kept in raw), by stream.",
    ),
    rejectedRecords: byStream(
      "etl_rejected_records_total",
      "Upstream records quarantined in etl.rejected_records, by stream.",
    ),
    partitionWarnings: new Counter({
      name: "etl_partition_warnings_total",
      help: "Partitions that ended with something uncertain, by stream and kind.",
      labelNames: ["stream", "kind"] as const,
      registers: [registry],
    }),
    stalledJobs: new Counter({
      name: "etl_jobs_stalled_total",
      help: "Jobs whose lock expired while active, found by this worker and handed back.",
      registers: [registry],
    }),
    phaseSeconds: new Counter({
      name: "etl_phase_seconds_total",
      help: "Time partitions spent fetching, normalising and writing, by stream and phase.",
      labelNames: ["stream", "phase"] as const,
      registers: [registry],
    }),
    partitionDuration: new Histogram({
      name: "etl_partition_duration_seconds",
      help: "Duration of one partition sync, by stream and outcome.",
      labelNames: ["stream", "status"] as const,
      buckets: PARTITION_BUCKETS,
      registers: [registry],
    }),
  };
}

type PartitionCounters = ReturnType<typeof partitionCounters>;

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
