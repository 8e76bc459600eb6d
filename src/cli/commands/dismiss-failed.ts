import { loadAppConfig } from "../load-app-config.js";
import { planPartitions } from "../../runner/plan/plan-partitions.js";
import { projectTrackedArtists } from "../../streams/artist-stats/projected-artists.js";
import { selectStreams, STREAM_NAMES } from "../../streams/registry.js";
import type { Stream } from "../../streams/stream.js";
import { utcToday } from "../../time/calendar.js";
import { createWarehouse, type Warehouse } from "../../warehouse/database.js";
import { migrateToLatest } from "../../warehouse/migrate.js";
import { dismissFailures, failedPartitions } from "../../warehouse/stream-state.js";
import { parseList } from "../day-range-options.js";
import { ExitCode } from "../exit-codes.js";
import type { Output } from "../output.js";

export interface DismissFailedOptions {
  readonly only?: string;
}

/**
 * The failed-for-good partitions of a stream that its plan, over every day since start_date,
 * no longer holds: an artist taken out of the configuration (its artists as the configuration
 * gives them now, not as the last sync of the artists found them), a day before start_date.
 */
async function unplannedFailures(
  deps: { db: Warehouse; config: ReturnType<typeof loadAppConfig>["etl"]; today: string },
  stream: Stream,
  trackedArtistIds: () => Promise<readonly number[]>,
): Promise<string[]> {
  const failed = await failedPartitions(deps.db, stream.name, true);
  if (failed.size === 0) return [];
  const options = { failedOnly: true, permanentToo: true, trackedArtistIds };
  for await (const slice of planPartitions(deps, stream, {}, options)) {
    for (const partition of slice) failed.delete(partition.key);
  }
  return [...failed];
}

/**
 * Closes the failures of partitions the configuration no longer plans, so that `status` can be
 * green again: they would otherwise stay failed for ever, since no run plans them again. What
 * is still planned is left, for `etl retry-failed`. Nothing is deleted: a dismissed partition
 * keeps its last error, and the audit of its attempts stays in etl.attempts.
 */
export async function dismissFailedCommand(
  options: DismissFailedOptions,
  out: Output,
): Promise<ExitCode> {
  const { env, etl } = loadAppConfig({ upstream: false });
  const selected = selectStreams(parseList(options.only));
  const db = createWarehouse(env.DATABASE_URL, { maxConnections: 1 });
  try {
    await migrateToLatest(db);
    const deps = { db, config: etl, today: utcToday() };
    const projection = projectTrackedArtists(db, etl, new Set(STREAM_NAMES));
    const trackedArtistIds = async () => (await projection).ids;
    const dismissed: string[] = [];
    let total = 0;
    for (const stream of selected) {
      const unplanned = await unplannedFailures(deps, stream, trackedArtistIds);
      const n = await dismissFailures(db, stream.name, unplanned);
      if (n > 0) dismissed.push(`${stream.name} ${n}`);
      total += n;
    }
    out.line(
      total === 0
        ? "no failed partition is outside what the configuration plans: nothing dismissed"
        : `dismissed ${total} failed partitions the configuration no longer plans (${dismissed.join(", ")}); their last errors stay in etl.stream_state`,
    );
    return ExitCode.ok;
  } finally {
    await db.destroy();
  }
}
