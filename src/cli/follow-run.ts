import type { Queue } from "bullmq";
import { readRunProgress } from "../jobs/run-progress.js";
import type { Output } from "./output.js";
import { MovingRate } from "./moving-rate.js";
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
 * The wait before the next look at a run: `pollMs`, or, once every partition is counted (`total`),
 * about when the last of them should be done at the recent pace, if sooner: a full poll's wait
 * after the last one would idle for a good part of a short run. Never less than ENDING_POLL_MS.
 */
export function nextPollMs(run: {
  pollMs: number;
  /** Partitions per second lately; null while unknown. */
  rate: number | null;
  done: number;
  total: number | null;
}): number {
  const { pollMs, rate, done, total } = run;
  // All done and the run still open: its end is the quick polls' to catch, for a while only.
  if (total === null || rate === null || rate <= 0 || done >= total) return pollMs;
  const expectedMs = ((total - done) * 1000) / rate;
  return Math.max(ENDING_POLL_MS, Math.min(pollMs, expectedMs));
}

/** How often the workers are counted while a run is followed. */
const WORKER_LOOK_MS = 5_000;
/** How long none may be seen before it is said: a worker restarting is back within it. */
const NO_WORKER_GRACE_MS = 10_000;

/**
 * Says when no worker runs while a run waits for one: none took it yet (none was started), or
 * the last one went away. A run in the queue waits for a worker for ever; its follower must not.
 */
export class WorkerWatch {
  readonly #queue: Queue;
  readonly #out: ProgressOutput;
  #lastLook = Number.NEGATIVE_INFINITY;
  #seen = false;
  #absentSince: number | null = null;
  #told = false;

  constructor(queue: Queue, out: ProgressOutput) {
    this.#queue = queue;
    this.#out = out;
  }

  /** Counts the workers, at most every WORKER_LOOK_MS of `now` (epoch ms), and says what it finds. */
  async look(now: number, left: number): Promise<void> {
    if (now - this.#lastLook < WORKER_LOOK_MS) return;
    this.#lastLook = now;
    const count = await this.#queue.getWorkersCount().catch(() => null);
    if (count === null) return;
    if (count > 0) {
      if (this.#told) this.#say(`${count} worker(s) running again: the run goes on`);
      this.#seen = true;
      this.#absentSince = null;
      this.#told = false;
      return;
    }
    this.#absentSince ??= now;
    if (this.#told || now - this.#absentSince < NO_WORKER_GRACE_MS) return;
    this.#told = true;
    const start =
      "start one with `etl worker` (`npx etl worker` in a clone, or the compose file's worker service)";
    this.#say(
      this.#seen
        ? `the last worker went away with ${left} partitions of this run left: ${start}; the run goes on from where it is`
        : `no worker is running, so nothing takes this run: ${start}; it waits in the queue until then`,
    );
  }

  #say(text: string): void {
    // A progress line being rewritten in place is cleared first.
    if (this.#out.interactive) this.#out.progress("");
    this.#out.line(text);
  }
}

/**
 * Follows a run to its end with a progress line (rewritten in place in a terminal, every few
 * seconds elsewhere), saying when no worker runs. True when it completed with no failed
 * partition.
 */
export async function followRun(
  queue: Queue,
  runId: string,
  out: ProgressOutput,
  pollMs = POLL_MS,
): Promise<boolean> {
  const rate = new MovingRate();
  const workers = new WorkerWatch(queue, out);
  let lastPlain = 0;
  let endingSince: number | null = null;
  for (;;) {
    const progress = await readRunProgress(queue, runId);
    if (!progress) {
      out.line(`run ${runId} is gone from the queue (removed?)`);
      return false;
    }
    const done = progress.succeeded + progress.failed;
    const counted = progress.streamsPlanned === progress.streams.length;
    const total = counted ? progress.planned : null;
    rate.add(Date.now(), done);
    const line = progressLine({
      done,
      total,
      failed: progress.failed,
      rate: rate.perSecond(),
      doing: progress.finished
        ? progress.state
        : counted
          ? `${progress.streams.length} streams planned`
          : `planning ${progress.streamsPlanned} of ${progress.streams.length} streams`,
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
          `${progress.failed} partitions failed for good: see \`etl status\` and etl.attempts`,
        );
      }
      return progress.state === "completed" && progress.failed === 0;
    }
    await workers.look(Date.now(), Math.max(0, progress.planned - done));
    const ending = counted && done >= progress.planned;
    endingSince = ending ? (endingSince ?? Date.now()) : null;
    const quick = endingSince !== null && Date.now() - endingSince < ENDING_MS;
    const wait = quick
      ? ENDING_POLL_MS
      : nextPollMs({ pollMs, rate: rate.perSecond(), done, total });
    await new Promise((resolve) => setTimeout(resolve, wait));
  }
}
