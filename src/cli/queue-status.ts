import type { Queue } from "bullmq";
import { table } from "./output.js";
import { utcMinuteOf } from "../time/calendar.js";

// prioritized: a backfill's partitions wait there, behind the waiting ones (run-priority.ts).
const STATES = [
  "waiting",
  "prioritized",
  "active",
  "delayed",
  "waiting-children",
  "failed",
  "completed",
] as const;

/** The workers, as a line that says what their absence means. */
function workersLine(workers: number, waiting: number): string {
  if (workers > 0) return `workers: ${workers} running`;
  return waiting > 0
    ? `workers: none running, and ${waiting} jobs wait for one: start one with \`etl worker\``
    : "workers: none running (scheduled runs need one: `etl worker`)";
}

/** The queue as the workers see it: its workers, jobs by state, and each scheduler's next run. */
export async function queueStatus(queue: Queue): Promise<string[]> {
  const counts = await queue.getJobCounts(...STATES);
  const workers = await queue.getWorkersCount();
  const schedulers = await queue.getJobSchedulers(0, -1, true);
  const waiting = (counts.waiting ?? 0) + (counts.prioritized ?? 0) + (counts.delayed ?? 0);
  return [
    workersLine(workers, waiting),
    `queue: ${STATES.map((state) => `${counts[state] ?? 0} ${state}`).join(", ")}`,
    "",
    ...table([
      ["scheduler", "pattern", "time zone", "next run (UTC)"],
      ...schedulers.map((s) => [
        s.key,
        s.pattern ?? `every ${s.every ?? "?"} ms`,
        s.tz ?? "UTC",
        s.next ? utcMinuteOf(new Date(s.next)) : "-",
      ]),
    ]),
    ...(schedulers.length === 0 ? ["(no schedulers: start a worker to create them)"] : []),
  ];
}
