import { Gauge, type Registry } from "prom-client";
import { type StreamSchedule, staleAfterSeconds } from "../config/schedule-interval.js";
import type { KeptReading } from "./kept-reading.js";
import { label } from "./metric-label.js";
import type { StreamSample } from "./metric-sources.js";

/** A gauge by stream and family: its name, its help, and its value for a stream. */
interface StreamGauge {
  readonly name: string;
  readonly help: string;
  readonly value: (sample: StreamSample) => number | null;
}

// What waits for a fix is a gauge of how it stands, not a counter: the alerts on it fire for as
// long as it waits, however long ago it came, and resolve once it is released.
const STREAM_GAUGES: readonly StreamGauge[] = [
  {
    name: "etl_stream_last_success_timestamp_seconds",
    help: "When a partition of the stream last succeeded (Unix time), by stream and family.",
    value: (s) => (s.lastSuccessAt ? s.lastSuccessAt.getTime() / 1000 : null),
  },
  {
    name: "etl_stream_last_day_timestamp_seconds",
    help: "Start of the latest day a daily partition of the stream synced (Unix time), by stream and family.",
    value: (s) => (s.lastDay ? Date.parse(`${s.lastDay}T00:00:00Z`) / 1000 : null),
  },
  {
    name: "etl_stream_failed_partitions",
    help: "Partitions of the stream that failed for good, by stream and family.",
    value: (s) => s.failedPartitions,
  },
  {
    name: "etl_stream_rejected_records",
    help: "Records of the stream waiting in quarantine, by stream and family.",
    value: (s) => s.rejectedRecords,
  },
  {
    name: "etl_stream_uncertain_partitions",
    help: "Partitions of the stream whose last success left a list uncertain, by stream and family.",
    value: (s) => s.uncertainPartitions,
  },
  {
    name: "etl_stream_unread_partitions",
    help: "Partitions of the stream whose latest load left values unread, by stream and family.",
    value: (s) => s.unreadPartitions,
  },
];

/** The etl_stream_ gauges, set at scrape time from one read of Postgres. */
export function registerStreamGauges(
  registry: Registry,
  streamsReading: KeptReading<readonly StreamSample[]>,
): void {
  for (const { name, help, value } of STREAM_GAUGES) {
    const gauge: Gauge<"stream" | "family"> = new Gauge({
      name,
      help,
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
}

/** The schedule's gauges, which the config sets once. */
export function registerScheduleGauges(
  registry: Registry,
  schedules: readonly StreamSchedule[],
): void {
  const scheduleInterval = new Gauge({
    name: "etl_stream_schedule_interval_seconds",
    help: "Longest gap between two scheduled runs of the stream's family, by stream and family.",
    labelNames: ["stream", "family"] as const,
    registers: [registry],
  });
  const staleAfter = new Gauge({
    name: "etl_stream_stale_after_seconds",
    help: "How long the stream may go without a success before it is stale, by stream and family.",
    labelNames: ["stream", "family"] as const,
    registers: [registry],
  });
  for (const { stream, family, intervalSeconds } of schedules) {
    const labels = { stream: label(stream), family: label(family) };
    scheduleInterval.set(labels, intervalSeconds);
    staleAfter.set(labels, staleAfterSeconds(intervalSeconds));
  }
}
