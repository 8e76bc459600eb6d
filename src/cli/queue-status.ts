import type { Queue } from "bullmq";
import { table } from "./output.js";
import { utcMinuteOf } from "../time/calendar.js";

const STATES = ["waiting", "active", "delayed", "waiting-children", "failed", "completed"] as const;

/** The queue as the workers see it: jobs by state, and each scheduler's next run. */
export async function queueStatus(queue: Queue): Promise<string[]> {
  const counts = await queue.getJobCounts(...STATES);
  const schedulers = await queue.getJobSchedulers(0, -1, true);
  return [
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
