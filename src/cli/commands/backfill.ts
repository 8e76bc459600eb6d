import { closeEtlQueue, openEtlQueue } from "../../jobs/etl-queue.js";
import { enqueueRun } from "../../jobs/enqueue-run.js";
import { loadAppConfig } from "../load-app-config.js";
import { UsageError } from "../../errors.js";
import { selectStreams } from "../../streams/registry.js";
import { type DayRangeOptions, parseDayRange, parseList } from "../day-range-options.js";
import { ExitCode } from "../exit-codes.js";
import type { ProgressOutput } from "../follow-run.js";
import { radioHistoryNote } from "../radio-history-note.js";
import { startDateNote } from "../start-date-note.js";
import { utcToday } from "../../time/calendar.js";
import type { Warehouse } from "../../warehouse/database.js";

export interface BackfillOptions extends DayRangeOptions {
  readonly only?: string;
  readonly wait?: boolean;
}

/**
 * Queues a backfill of every stream (or those named) for workers: daily streams over the range,
 * the others once, and records it in etl.runs (migrating first), so that a run Redis loses is
 * listed by `etl status`. With --wait, follows it to the end and fails if any partition failed;
 * exits 4 (attention) when its partitions quarantined records or may be incomplete.
 */
export async function backfillCommand(
  options: BackfillOptions,
  out: ProgressOutput,
): Promise<ExitCode> {
  const { env, etl } = loadAppConfig({ upstream: false });
  if (!options.from || !options.to) throw new UsageError("backfill needs --from and --to");
  const range = parseDayRange(options);
  const selected = selectStreams(parseList(options.only));
  const streams = selected.map((s) => s.name);
  // Recording the run needs the warehouse's client: it loads while Redis connects, not before.
  const warehouse = Promise.all([
    import("../../warehouse/database.js"),
    import("../../warehouse/migrate.js"),
  ]);
  // Awaited below; a queue that cannot open must not leave it rejected and unheard.
  warehouse.catch(() => undefined);
  const queue = await openEtlQueue(env.REDIS_URL, etl);
  let db: Warehouse | undefined;
  try {
    const [{ createWarehouse }, { migrateToLatest }] = await warehouse;
    db = createWarehouse(env.DATABASE_URL, { maxConnections: 1 });
    await migrateToLatest(db);
    // Following the run: it loads while the run is queued.
    const following = options.wait ? import("../wait-for-run.js") : undefined;
    // Awaited below; a failure to queue must not leave it rejected and unheard.
    following?.catch(() => undefined);
    const { runId, added } = await enqueueRun(queue, { kind: "backfill", streams, range }, db);
    out.line(
      added
        ? `backfill ${runId} queued: ${streams.length} streams, ${range.from}..${range.to}`
        : `the same backfill is already queued or running as ${runId}: nothing added`,
    );
    const radio = radioHistoryNote(etl, selected, range, utcToday());
    if (radio) out.line(radio);
    const early = startDateNote(etl, range);
    if (early) out.line(early);
    return following
      ? await (await following).waitForRun(queue, runId, streams, env.DATABASE_URL, out)
      : ExitCode.ok;
  } finally {
    await db?.destroy();
    await closeEtlQueue(queue);
  }
}
