import { createEtlQueue } from "../../jobs/etl-queue.js";
import { enqueueRun } from "../../jobs/enqueue-run.js";
import { readRunProgress } from "../../jobs/run-progress.js";
import { loadConfig } from "../../config/load-config.js";
import { selectStreams } from "../../streams/registry.js";
import { createWarehouse } from "../../warehouse/database.js";
import { failedPartitionCounts } from "../../warehouse/stream-state.js";
import { type DayRangeOptions, parseDayRange, parseList } from "../day-range-options.js";
import { ExitCode } from "../exit-codes.js";
import type { ProgressOutput } from "../follow-run.js";
import { waitForRun } from "../wait-for-run.js";

export interface RetryFailedOptions extends DayRangeOptions {
  readonly only?: string;
  readonly wait?: boolean;
}

/**
 * Queues for the workers the partitions whose last attempt failed (of every stream or those
 * named; daily ones within --from/--to when given). The run plans each stream as usual and keeps
 * only those partitions, so a retried partition is the one the stream would plan today. With
 * --wait, follows it as a backfill and says how many failures it could not plan again.
 */
export async function retryFailedCommand(
  options: RetryFailedOptions,
  out: ProgressOutput,
): Promise<ExitCode> {
  const { env, etl } = loadConfig({ upstream: false });
  const range = parseDayRange(options);
  const selected = selectStreams(parseList(options.only)).map((s) => s.name);
  const db = createWarehouse(env.DATABASE_URL, { maxConnections: 1 });
  const failed = await failedPartitionCounts(db, selected).finally(() => db.destroy());
  const streams = selected.filter((stream) => failed.has(stream));
  if (streams.length === 0) {
    out.line("no partition's last attempt failed: nothing to retry");
    return ExitCode.ok;
  }
  const total = [...failed.values()].reduce((a, b) => a + b, 0);
  const within =
    range.from || range.to
      ? `, daily ones within ${range.from ?? "start_date"}..${range.to ?? "yesterday"}`
      : "";
  const queue = createEtlQueue(env.REDIS_URL, etl);
  try {
    const { runId, added } = await enqueueRun(queue, { kind: "retry", streams, range });
    out.line(
      added
        ? `retry ${runId} queued: ${total} failed partitions (${streams.map((s) => `${s} ${failed.get(s)}`).join(", ")})${within}`
        : `the same retry is already queued or running as ${runId}: nothing added`,
    );
    if (!options.wait) return ExitCode.ok;
    const outcome = await waitForRun(queue, runId, streams, env.DATABASE_URL, out);
    const planned = (await readRunProgress(queue, runId))?.planned ?? 0;
    if (added && planned < total) {
      out.line(
        `${total - planned} failed partitions were not retried: outside --from/--to, or no longer planned (an artist no longer tracked, a day before start_date); \`etl status\` lists them`,
      );
    }
    return outcome;
  } finally {
    await queue.close();
  }
}
