import { closeEtlQueue, openEtlQueue } from "../../jobs/etl-queue.js";
import { enqueueRun } from "../../jobs/enqueue-run.js";
import { settleRetries } from "../../jobs/settle-retries.js";
import { loadAppConfig } from "../load-app-config.js";
import type { EtlConfig } from "../../config/etl-config-schema.js";
import { type DayRange, planPartitions } from "../../runner/plan/plan-partitions.js";
import { selectStreams } from "../../streams/registry.js";
import type { Stream } from "../../streams/stream.js";
import { utcToday } from "../../time/calendar.js";
import { createWarehouse, type Warehouse } from "../../warehouse/database.js";
import { migrateToLatest } from "../../warehouse/migrate.js";
import { type FailureCounts, failureCounts } from "../../warehouse/stream-state.js";
import { type DayRangeOptions, parseDayRange, parseList } from "../day-range-options.js";
import { ExitCode } from "../exit-codes.js";
import type { ProgressOutput } from "../follow-run.js";
import { waitForRun } from "../wait-for-run.js";

export interface RetryFailedOptions extends DayRangeOptions {
  readonly only?: string;
  readonly wait?: boolean;
  /** Failures no retry can cure too (an unknown artist's 404s): by default they are left. */
  readonly permanent?: boolean;
}

/** How many partitions a retry run of the stream plans now: those failed for good, in range. */
async function plannedRetries(
  deps: { db: Warehouse; config: EtlConfig; today: string },
  stream: Stream,
  range: DayRange,
  permanentToo: boolean,
): Promise<number> {
  let planned = 0;
  const options = { failedOnly: true, permanentToo };
  for await (const slice of planPartitions(deps, stream, range, options)) {
    planned += slice.length;
  }
  return planned;
}

const sum = (values: Iterable<number>) => [...values].reduce((a, b) => a + b, 0);

/** What a retry leaves of the failures, and why: no retry can cure it, not planned, retrying. */
function leftLines(
  counts: ReadonlyMap<string, FailureCounts>,
  queued: number,
  permanentToo: boolean,
): string[] {
  const failed = sum([...counts.values()].map((c) => c.failed));
  const retrying = sum([...counts.values()].map((c) => c.retrying));
  const permanent = permanentToo ? 0 : sum([...counts.values()].map((c) => c.permanent));
  return [
    ...(permanent > 0
      ? [
          `${permanent} partitions failed for a cause no retry can cure and are not queued (\`etl status\` names the causes): correct the configuration, then \`etl dismiss-failed\` closes those it no longer plans; --permanent queues them anyway`,
        ]
      : []),
    ...(failed - permanent > queued
      ? [
          `${failed - permanent - queued} other partitions failed for good and are not queued: outside --from/--to, or no longer planned (an artist no longer tracked, a day before start_date); \`etl status\` lists them, \`etl dismiss-failed\` closes those no longer planned`,
        ]
      : []),
    ...(retrying > 0
      ? [
          `${retrying} partitions failed an attempt and are not queued: their job has attempts left (job_attempts) and tries them again`,
        ]
      : []),
  ];
}

/**
 * Queues for the workers the partitions that failed for good (of every stream or those named;
 * daily ones within --from/--to when given). A partition whose last attempt failed while its job
 * still has attempts left is not one: that job tries it again. The run plans each stream as usual
 * and keeps only those partitions, so a retried partition is the one the stream would plan today;
 * the command plans them the same way first, so the count it prints is what the run queues, and
 * it says how many failures it leaves and why. The run is recorded in etl.runs, as a backfill's.
 * With --wait, follows the run as a backfill.
 */
export async function retryFailedCommand(
  options: RetryFailedOptions,
  out: ProgressOutput,
): Promise<ExitCode> {
  const { env, etl } = loadAppConfig({ upstream: false });
  const range = parseDayRange(options);
  const selected = selectStreams(parseList(options.only));
  const queue = await openEtlQueue(env.REDIS_URL, etl);
  const db = createWarehouse(env.DATABASE_URL, { maxConnections: 1 });
  try {
    await migrateToLatest(db);
    await settleRetries(db, queue);
    const counts = await failureCounts(
      db,
      selected.map((s) => s.name),
    );
    const deps = { db, config: etl, today: utcToday() };
    const permanentToo = options.permanent ?? false;
    const planned = new Map<string, number>();
    for (const stream of selected) {
      if ((counts.get(stream.name)?.failed ?? 0) === 0) continue;
      const n = await plannedRetries(deps, stream, range, permanentToo);
      if (n > 0) planned.set(stream.name, n);
    }
    const queued = sum(planned.values());
    const within =
      range.from || range.to
        ? `, daily ones within ${range.from ?? "start_date"}..${range.to ?? "yesterday"}`
        : "";
    const streams = [...planned.keys()];
    const run =
      streams.length === 0
        ? null
        : await enqueueRun(
            queue,
            { kind: "retry", streams, range, ...(permanentToo ? { permanentToo } : {}) },
            db,
          );
    if (!run) {
      out.line(`no partition failed for good${within}: nothing to retry`);
    } else if (run.added) {
      const perStream = [...planned].map(([stream, n]) => `${stream} ${n}`).join(", ");
      out.line(`retry ${run.runId} queued: ${queued} failed partitions (${perStream})${within}`);
    } else {
      out.line(`the same retry is already queued or running as ${run.runId}: nothing added`);
    }
    for (const line of leftLines(counts, queued, permanentToo)) out.line(line);
    if (!run || !options.wait) return ExitCode.ok;
    return await waitForRun(queue, run.runId, streams, env.DATABASE_URL, out);
  } finally {
    await db.destroy();
    await closeEtlQueue(queue);
  }
}
