import { addDays, daysBetween } from "../time/calendar.js";
import { succeededCheckpoints } from "../warehouse/stream-state.js";
import type { RunnerDeps } from "./run-partition.js";
import type { Partition, Stream } from "./stream.js";

export interface DayRange {
  /** First day, inclusive (default: start_date). */
  readonly from?: string;
  /** Last day, inclusive (default: yesterday UTC). */
  readonly to?: string;
}

/**
 * The partitions a run syncs. With an explicit range: every partition in it. Otherwise
 * (incremental): daily partitions never synced, plus the last `lookback_days` days again for
 * late and restated data; partitions without a day always run (they keep their own cursors).
 */
export async function planPartitions(
  deps: Pick<RunnerDeps, "db" | "config" | "today">,
  stream: Stream,
  range: DayRange,
): Promise<readonly Partition[]> {
  const yesterday = addDays(deps.today, -1);
  const explicit = range.from !== undefined || range.to !== undefined;
  const checkpoints = await succeededCheckpoints(deps.db, stream.name);
  const candidates = await stream.partitions({
    db: deps.db,
    config: deps.config,
    today: deps.today,
    days: daysBetween(range.from ?? deps.config.start_date, range.to ?? yesterday),
    checkpoints,
  });
  if (explicit) return candidates;
  const lookbackStart = addDays(yesterday, 1 - deps.config.lookback_days);
  return candidates.filter(
    (p) => p.day === undefined || p.day >= lookbackStart || !checkpoints.has(p.key),
  );
}
