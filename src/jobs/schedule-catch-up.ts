import type { EtlConfig } from "../config/etl-config-schema.js";
import { lookbackStartOf, planPartitions } from "../runner/plan/plan-partitions.js";
import { STREAMS } from "../streams/registry.js";
import type { Warehouse } from "../warehouse/database.js";
import { streamSchedules } from "./stream-schedules.js";

/**
 * What the schedules leave to a backfill: the daily partitions before their lookback that never
 * synced (a `start_date` far back, a worker stopped for longer than the lookback), which a
 * scheduled run does not plan (PlanOptions.lookbackOnly); for the worker's start-up line.
 */
export interface ScheduleCatchUp {
  readonly streams: readonly string[];
  readonly partitions: number;
  /** The least the partitions take: their streams' own counts, one where a stream has none. */
  readonly requests: number;
  /** The oldest and newest day among them. */
  readonly from: string;
  readonly to: string;
}

export async function scheduleCatchUp(
  db: Warehouse,
  config: EtlConfig,
  today: string,
): Promise<ScheduleCatchUp | null> {
  const scheduled = new Set(streamSchedules(config).map((s) => s.stream));
  const streams: string[] = [];
  let partitions = 0;
  let requests = 0;
  let from: string | undefined;
  let to: string | undefined;
  for (const stream of STREAMS) {
    if (stream.daily !== true || !scheduled.has(stream.name)) continue;
    const lookbackStart = lookbackStartOf(config, stream, today);
    let found = 0;
    for await (const slice of planPartitions({ db, config, today }, stream, {})) {
      for (const partition of slice) {
        if (partition.day === undefined || partition.day >= lookbackStart) continue;
        found += 1;
        requests += stream.requests?.(partition) ?? 1;
        if (from === undefined || partition.day < from) from = partition.day;
        if (to === undefined || partition.day > to) to = partition.day;
      }
    }
    if (found > 0) streams.push(stream.name);
    partitions += found;
  }
  return from === undefined || to === undefined
    ? null
    : { streams, partitions, requests, from, to };
}
