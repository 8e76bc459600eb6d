import { createEtlQueue } from "../../../jobs/etl-queue.js";
import { enqueueRun } from "../../../jobs/enqueue-run.js";
import { readRunProgress } from "../../../jobs/run-progress.js";
import { loadConfig } from "../../config/load-config.js";
import { UsageError } from "../../errors.js";
import { selectStreams } from "../../streams/registry.js";
import { type DayRangeOptions, parseDayRange, parseList } from "../day-range-options.js";
import { ExitCode } from "../exit-codes.js";
import type { Output } from "../output.js";
import { progressLine } from "../progress-line.js";

export interface BackfillOptions extends DayRangeOptions {
  readonly only?: string;
  readonly wait?: boolean;
}

export interface ProgressOutput extends Output {
  /** Replaces the current line in a terminal; elsewhere prints it (throttled by the caller). */
  readonly progress: (text: string) => void;
  readonly interactive: boolean;
}

const POLL_MS = 500;
const PLAIN_EVERY_MS = 5_000;

/**
 * Queues a backfill of every stream (or those named) for workers: daily streams over the range,
 * the others once. With --wait, follows it to the end and fails if any partition failed.
 */
export async function backfillCommand(
  options: BackfillOptions,
  out: ProgressOutput,
): Promise<ExitCode> {
  const { env, etl } = loadConfig({ upstream: false });
  if (!options.from || !options.to) throw new UsageError("backfill needs --from and --to");
  const range = parseDayRange(options);
  const streams = selectStreams(parseList(options.only)).map((s) => s.name);
  const queue = createEtlQueue(env.REDIS_URL, etl);
  try {
    const { runId, added } = await enqueueRun(queue, { kind: "backfill", streams, range });
    out.line(
      added
        ? `backfill ${runId} queued: ${streams.length} streams, ${range.from}..${range.to}`
        : `the same backfill is already queued or running as ${runId}: nothing added`,
    );
    if (!options.wait) return ExitCode.ok;
    return await follow(queue, runId, out);
  } finally {
    await queue.close();
  }
}

async function follow(
  queue: ReturnType<typeof createEtlQueue>,
  runId: string,
  out: ProgressOutput,
): Promise<ExitCode> {
  const started = Date.now();
  let lastPlain = 0;
  for (;;) {
    const progress = await readRunProgress(queue, runId);
    if (!progress) {
      out.line(`backfill ${runId} is gone from the queue (removed?)`);
      return ExitCode.failure;
    }
    const stream = progress.streams[Math.max(0, progress.stage - 1)] ?? "";
    const line = progressLine({
      done: progress.succeeded + progress.failed,
      total: progress.planned,
      failed: progress.failed,
      elapsedMs: Date.now() - started,
      doing: progress.finished
        ? progress.state
        : `stream ${Math.max(1, progress.stage)}/${progress.streams.length} ${stream}`,
    });
    if (out.interactive || progress.finished || Date.now() - lastPlain >= PLAIN_EVERY_MS) {
      out.progress(line);
      lastPlain = Date.now();
    }
    if (progress.finished) {
      if (out.interactive) out.line("");
      if (progress.error) out.line(`backfill ${runId} failed: ${progress.error}`);
      if (progress.failed > 0) {
        out.line(
          `${progress.failed} partitions failed for good: see \`etl status\` and etl.sync_runs`,
        );
      }
      return progress.state === "completed" && progress.failed === 0
        ? ExitCode.ok
        : ExitCode.failure;
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}
