import type { Queue } from "bullmq";
import type { EtlConfig } from "../config/etl-config-schema.js";
import { PROCESS_IDENTITY } from "../process-identity.js";
import { STREAMS } from "../streams/registry.js";
import { STREAM_FAMILIES } from "../config/families.js";
import { jobOptions } from "./etl-queue.js";
import { RUN_JOB, type RunJobData } from "./job-types.js";

const SCHEDULER_PREFIX = "family-";

export interface SchedulerChange {
  readonly scheduler: string;
  readonly change: "upserted" | "removed";
}

/** The schedulers the config asks for, by id. */
function wantedSchedulers(config: EtlConfig): Map<string, { family: string }> {
  return new Map(
    STREAM_FAMILIES.flatMap((family) =>
      config.schedules[family] ? [[`${SCHEDULER_PREFIX}${family}`, { family }] as const] : [],
    ),
  );
}

async function upsertScheduler(queue: Queue, config: EtlConfig, family: string): Promise<string> {
  const schedule = config.schedules[family as keyof EtlConfig["schedules"]];
  const id = `${SCHEDULER_PREFIX}${family}`;
  if (!schedule) return id;
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
  return id;
}

/**
 * The marker a reconciliation leaves in Redis beside the queue: the schedulers it made. Redis
 * never loses it alone: gone, Redis lost its data (or was flushed), the schedulers with it.
 */
function markerKey(config: EtlConfig): string {
  return `${config.redis_prefix}schedulers`;
}

async function writeMarker(queue: Queue, config: EtlConfig, schedulers: string[]): Promise<void> {
  const client = await queue.getBackend().client;
  const marker = { schedulers, by: PROCESS_IDENTITY, at: new Date().toISOString() };
  await client.set(markerKey(config), JSON.stringify(marker));
}

/** The schedulers the last reconciliation made, or null when its marker is gone. */
async function readMarker(queue: Queue, config: EtlConfig): Promise<string[] | null> {
  const client = await queue.getBackend().client;
  const text = await client.get(markerKey(config));
  if (text === null) return null;
  try {
    const { schedulers } = JSON.parse(text) as { schedulers?: unknown };
    return Array.isArray(schedulers) ? schedulers.map(String) : [];
  } catch {
    return [];
  }
}

/**
 * Makes the queue's job schedulers match the config: one per family with a schedule, updated
 * in place when its pattern or zone changed, removed when its family has none. Upserting by id
 * is idempotent, so any number of workers may do this at once without duplicates. Leaves the
 * marker restoreSchedulers looks for.
 */
export async function reconcileSchedulers(
  queue: Queue,
  config: EtlConfig,
): Promise<SchedulerChange[]> {
  const changes: SchedulerChange[] = [];
  const wanted = wantedSchedulers(config);
  for (const { family } of wanted.values()) {
    changes.push({ scheduler: await upsertScheduler(queue, config, family), change: "upserted" });
  }
  for (const existing of await queue.getJobSchedulers()) {
    if (existing.key.startsWith(SCHEDULER_PREFIX) && !wanted.has(existing.key)) {
      await queue.removeJobScheduler(existing.key);
      changes.push({ scheduler: existing.key, change: "removed" });
    }
  }
  await writeMarker(queue, config, [...wanted.keys()]);
  return changes;
}

/** What restoreSchedulers found and did. */
export interface SchedulersRestored {
  /** Why: Redis lost its data (the marker is gone), or some schedulers alone are gone. */
  readonly reason: "redis lost its data" | "schedulers gone";
  readonly changes: readonly SchedulerChange[];
}

/**
 * Re-creates the job schedulers Redis lost, for a running worker; null when none is missing.
 * With the marker gone, Redis lost its data: the schedulers are reconciled with this worker's
 * config, as at its start. With the marker there, only the schedulers it names that are gone and
 * that this worker's config has are made again: a worker of an older config, still running while
 * the new one rolls out, never brings back a schedule the newer one removed. Idempotent across any
 * number of workers, as reconcileSchedulers is.
 */
export async function restoreSchedulers(
  queue: Queue,
  config: EtlConfig,
): Promise<SchedulersRestored | null> {
  const marked = await readMarker(queue, config);
  if (marked === null) {
    return { reason: "redis lost its data", changes: await reconcileSchedulers(queue, config) };
  }
  const wanted = wantedSchedulers(config);
  const present = new Set((await queue.getJobSchedulers()).map((s) => s.key));
  const changes: SchedulerChange[] = [];
  for (const id of marked) {
    const family = wanted.get(id)?.family;
    if (present.has(id) || family === undefined) continue;
    changes.push({ scheduler: await upsertScheduler(queue, config, family), change: "upserted" });
  }
  return changes.length === 0 ? null : { reason: "schedulers gone", changes };
}
