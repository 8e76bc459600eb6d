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
/**
 * Once every partition of every stream is planned and done, the run job only has to be completed:
 * polled this often, its end costs a few commands instead of half a poll's wait (on average), for
 * at most ENDING_MS (a worker that died then leaves the run to the usual pace).
 */
const ENDING_POLL_MS = 20;
const ENDING_MS = 5_000;
const PLAIN_EVERY_MS = 5_000;

/**
 * The wait before the next look at a run: `pollMs`, or, once every partition is planned (`total`),
 * about when the last of them should be done at the pace so far, if sooner: a full poll's wait
 * after the last one would idle for a good part of a short run. Never less than ENDING_POLL_MS.
 */
export function nextPollMs(run: {
  pollMs: number;
  elapsedMs: number;
  done: number;
  total: number | null;
}): number {
  const { pollMs, elapsedMs, done, total } = run;
  // All done and the run still open: its end is the quick polls' to catch, for a while only.
  if (total === null || done === 0 || done >= total) return pollMs;
  const expectedMs = ((total - done) * elapsedMs) / done;
  return Math.max(ENDING_POLL_MS, Math.min(pollMs, expectedMs));
}

/**
 * Follows a run to its end with a progress line (rewritten in place in a terminal, every few
 * seconds elsewhere). True when it completed with no failed partition.
 */
export async function followRun(
  queue: Queue,
  runId: string,
  out: ProgressOutput,
  pollMs = POLL_MS,
): Promise<boolean> {
  const started = Date.now();
  let lastPlain = 0;
  let endingSince: number | null = null;
  for (;;) {
    const progress = await readRunProgress(queue, runId);
    if (!progress) {
      out.line(`run ${runId} is gone from the queue (removed?)`);
      return false;
    }
    const done = progress.succeeded + progress.failed;
    const line = progressLine({
      done,
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
    const planned = progress.streamsPlanned === progress.streams.length;
    const ending = planned && done >= progress.planned;
    endingSince = ending ? (endingSince ?? Date.now()) : null;
    const quick = endingSince !== null && Date.now() - endingSince < ENDING_MS;
    const wait = quick
      ? ENDING_POLL_MS
      : nextPollMs({
          pollMs,
          elapsedMs: Date.now() - started,
          done,
          total: planned ? progress.planned : null,
        });
    await new Promise((resolve) => setTimeout(resolve, wait));
  }
}
