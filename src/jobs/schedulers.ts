import type { Queue } from "bullmq";
import type { EtlConfig } from "../config/etl-config-schema.js";
import { STREAMS } from "../streams/registry.js";
import { STREAM_FAMILIES } from "../streams/families.js";
import { jobOptions } from "./etl-queue.js";
import { RUN_JOB, type RunJobData } from "./job-types.js";

const SCHEDULER_PREFIX = "family-";

export interface SchedulerChange {
  readonly scheduler: string;
  readonly change: "upserted" | "removed";
}

/**
 * Makes the queue's job schedulers match the config: one per family with a schedule, updated
 * in place when its pattern or zone changed, removed when its family has none. Upserting by id
 * is idempotent, so any number of workers may do this at once without duplicates.
 */
export async function reconcileSchedulers(
  queue: Queue,
  config: EtlConfig,
): Promise<SchedulerChange[]> {
  const changes: SchedulerChange[] = [];
  const wanted = new Set<string>();
  for (const family of STREAM_FAMILIES) {
    const schedule = config.schedules[family];
    if (!schedule) continue;
    const id = `${SCHEDULER_PREFIX}${family}`;
    wanted.add(id);
    const data: RunJobData = {
      kind: "schedule",
      streams: STREAMS.filter((s) => s.family === family).map((s) => s.name),
      range: {},
    };
    await queue.upsertJobScheduler(
      id,
      { pattern: schedule.pattern, tz: schedule.tz },
      { name: RUN_JOB, data, opts: jobOptions(config) },
    );
    changes.push({ scheduler: id, change: "upserted" });
  }
  for (const existing of await queue.getJobSchedulers()) {
    if (existing.key.startsWith(SCHEDULER_PREFIX) && !wanted.has(existing.key)) {
      await queue.removeJobScheduler(existing.key);
      changes.push({ scheduler: existing.key, change: "removed" });
    }
  }
  return changes;
}
