import { setMaxListeners } from "node:events";
import pLimit from "p-limit";
import { AuthError } from "../errors.js";
import { linkedAbort } from "../async/linked-abort.js";
import { loadPageSizes, savePageSizes } from "../warehouse/page-sizes.js";
import { PageSizes } from "./page-sizes.js";
import { type DayRange, planPartitions } from "./plan-partitions.js";
import { type RunnerDeps, runPartition } from "./run-partition.js";
import { type PartitionOutcome } from "./partition-outcome.js";
import type { Stream } from "./stream.js";
import { partitionsInFlight } from "../config/partitions-in-flight.js";
import { runGraph } from "./stream-dependencies.js";
import { type StreamSummary, StreamTally } from "./stream-tally.js";

export type { StreamSummary } from "./stream-tally.js";

/**
 * Runs the streams through one pool of partitions: every stream is planned at once, except that
 * a stream waits for those it is planned after (`Stream.after`), whose partitions go first. Requests are capped by the
 * shared budget; the pool holds more partitions than that, so one writing never keeps a request
 * slot idle. A failed partition is recorded and the others go on; a refused credential stops
 * everything at once and is thrown; the caller's signal (a shutdown) stops it too, and the
 * summaries count what was interrupted. Either way it returns or throws only once no partition is
 * running any more, so the caller may release what they use. Summaries are in `streams` order.
 */
export async function runSync(
  deps: RunnerDeps,
  streams: readonly Stream[],
  range: DayRange,
  onStream?: (summary: StreamSummary) => void,
): Promise<StreamSummary[]> {
  // Aborted by the caller's signal, or here when the credential is refused.
  const abort = linkedAbort(deps.signal);
  const { signal } = abort;
  const pageSizes = deps.pageSizes ?? new PageSizes({ known: await loadPageSizes(deps.db) });
  const runner = { ...deps, signal, pageSizes };
  let refused: AuthError | undefined;
  const inFlight = partitionsInFlight(deps.config.max_concurrency);
  const limit = pLimit(inFlight);
  // Shared by every partition in flight, each listening once per request and per place it holds
  // in the budget's queue (a page of catalogue artists looks up each at once): not a leak, though
  // Node warns of one past 10 listeners.
  setMaxListeners(0, signal);
  const { order, after, awaited } = runGraph(streams);
  const finished = new Map<string, Promise<StreamSummary | null>>();

  const runStream = async (stream: Stream): Promise<StreamSummary | null> => {
    await Promise.all((after.get(stream.name) ?? []).map((name) => start(name)));
    if (signal.aborted) return null;
    const tally = new StreamTally(stream.name);
    // The partitions others wait for are few and skip the pool's queue: behind a year of trends,
    // they would leave the streams planned from them idle until the end.
    const pool = <T>(run: () => Promise<T>): Promise<T> =>
      awaited.has(stream.name) ? run() : limit(run);
    for await (const slice of planPartitions(deps, stream, range)) {
      if (signal.aborted) break;
      const outcomes = await Promise.all(
        slice.map((partition) =>
          pool(async () => {
            if (signal.aborted) return null;
            const outcome = await runPartition(runner, stream, partition);
            if (outcome.error instanceof AuthError) {
              refused = outcome.error;
              abort.abort(refused);
            }
            return outcome;
          }),
        ),
      );
      tally.add(outcomes.filter((o): o is PartitionOutcome => o !== null));
    }
    await savePageSizes(deps.db, pageSizes.takeChanged());
    const summary = tally.summary();
    onStream?.(summary);
    return summary;
  };
  const start = (name: string): Promise<StreamSummary | null> => {
    let running = finished.get(name);
    if (!running) {
      const stream = streams.find((s) => s.name === name);
      if (!stream) throw new Error(`no stream ${name} in this run`);
      running = runStream(stream);
      finished.set(name, running);
    }
    return running;
  };

  try {
    // Started in planning order, so the partitions others wait for enter the pool first.
    for (const stream of order) void start(stream.name);
    const settled = await Promise.allSettled(streams.map((s) => start(s.name)));
    if (refused) throw refused;
    const summaries: StreamSummary[] = [];
    for (const result of settled) {
      if (result.status === "rejected") throw result.reason;
      if (result.value) summaries.push(result.value);
    }
    return summaries;
  } finally {
    abort.close();
  }
}
