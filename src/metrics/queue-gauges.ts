import { Gauge, type Registry } from "prom-client";
import type { KeptReading } from "./kept-reading.js";
import { label } from "./metric-label.js";

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

/** etl_queue_jobs and etl_workers, read from Redis. */
export function registerQueueGauges(
  registry: Registry,
  queueReading: KeptReading<Record<string, number>>,
  workersReading: KeptReading<number>,
): void {
  const queueJobs: Gauge<"state"> = new Gauge({
    name: "etl_queue_jobs",
    help: "Jobs in the queue by state, read from Redis at scrape time.",
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
    help: "Workers connected to the queue, every process's, read from Redis at scrape time.",
    registers: [registry],
    collect: async () => {
      await workersReading.read();
      workers.reset();
      if (workersReading.value !== undefined) workers.set(workersReading.value);
    },
  });
}
