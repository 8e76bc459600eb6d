import type { Queue } from "bullmq";
import { readRunProgress } from "../jobs/run-progress.js";
import type { Output } from "./output.js";
import { progressLine } from "./progress-line.js";

export interface ProgressOutput extends Output {
  /** Replaces the current line in a terminal; elsewhere prints it. */
  readonly progress: (text: string) => void;
  readonly interactive: boolean;
}

/** Standard output: a progress line is rewritten in place in a terminal, printed elsewhere. */
export function standardOutput(): ProgressOutput {
  const interactive = process.stdout.isTTY;
  return {
    line: (text) => void process.stdout.write(`${text}\n`),
    interactive,
    progress: (text) => void process.stdout.write(interactive ? `\r\x1b[2K${text}` : `${text}\n`),
  };
}

const POLL_MS = 200;
const PLAIN_EVERY_MS = 5_000;

/**
 * Follows a run to its end with a progress line (rewritten in place in a terminal, every few
 * seconds elsewhere). True when it completed with no failed partition.
 */
export async function followRun(
  queue: Queue,
  runId: string,
  out: ProgressOutput,
): Promise<boolean> {
  const started = Date.now();
  let lastPlain = 0;
  for (;;) {
    const progress = await readRunProgress(queue, runId);
    if (!progress) {
      out.line(`run ${runId} is gone from the queue (removed?)`);
      return false;
    }
    const line = progressLine({
      done: progress.succeeded + progress.failed,
      total: progress.planned,
      failed: progress.failed,
      elapsedMs: Date.now() - started,
      doing: progress.finished
        ? progress.state
        : `${progress.streamsPlanned}/${progress.streams.length} streams planned`,
    });
    if (out.interactive || progress.finished || Date.now() - lastPlain >= PLAIN_EVERY_MS) {
      out.progress(line);
      lastPlain = Date.now();
    }
    if (progress.finished) {
      if (out.interactive) out.line("");
      if (progress.error) out.line(`${progress.kind} ${runId} failed: ${progress.error}`);
      if (progress.failed > 0) {
        out.line(
          `${progress.failed} partitions failed for good: see \`etl status\` and etl.sync_runs`,
        );
      }
      return progress.state === "completed" && progress.failed === 0;
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}
