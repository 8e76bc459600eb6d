import { setMaxListeners } from "node:events";
import pLimit, { type LimitFunction } from "p-limit";
import { AuthError } from "../http/upstream-errors.js";
import { type LinkedAbort, linkedAbort } from "../async/linked-abort.js";
import { loadPageSizes, savePageSizes } from "../warehouse/page-size-facts.js";
import { PageSizes } from "../streams/page-sizes.js";
import { type DayRange, planPartitions } from "./plan/plan-partitions.js";
import type { RunnerDeps } from "./attempt-record.js";
import { syncPartition } from "./extract/sync-partition.js";
import { type PartitionOutcome } from "./partition-outcome.js";
import type { Stream } from "../streams/stream.js";
import type { Partition } from "../streams/partition.js";
import { partitionsInFlight } from "../config/partitions-in-flight.js";
import { type RunGraph, runGraph } from "./plan/stream-dependencies.js";
import { type StreamSummary, StreamTally } from "./stream-tally.js";

export type { StreamSummary } from "./stream-tally.js";

/**
 * Runs the streams through one pool of partitions: every stream is planned at once, except that
 * a stream waits for those it is planned after (`Stream.after`), whose partitions go first.
 * Requests are capped by the shared budget; the pool holds more partitions than that, so one
 * writing never keeps a request slot idle. A failed partition is recorded and the others go on;
 * a refused credential stops everything at once and is thrown; the caller's signal (a shutdown)
 * stops it too, and the summaries count what was interrupted. Either way it returns or throws only once no partition is
 * running any more, so the caller may release what they use. Summaries are in `streams` order.
 */
export async function runSync(
  deps: RunnerDeps,
  streams: readonly Stream[],
  range: DayRange,
  onStream?: (summary: StreamSummary) => void,
): Promise<StreamSummary[]> {
  // Aborted by the caller's signal, or here when the credential is refused.
  const abort = linkedAbort([deps.signal]);
  const { signal } = abort;
  const pageSizes = deps.pageSizes ?? new PageSizes({ known: await loadPageSizes(deps.db) });
  // Shared by every partition in flight, each listening once per request and per place it holds
  // in the budget's queue (a page of catalogue artists looks up each at once): not a leak, though
  // Node warns of one past 10 listeners.
  setMaxListeners(0, signal);
  const runs = new StreamRuns({ ...deps, signal, pageSizes }, abort, streams, range, onStream);
  try {
    return await runs.summaries();
  } finally {
    abort.close();
  }
}

/** What every partition of a sync runs with: the sync's signal, and page sizes they share. */
type SyncRunner = RunnerDeps & { readonly signal: AbortSignal; readonly pageSizes: PageSizes };

/**
 * The streams of one sync under way: each started once, when those it is planned after are
 * done, its partitions run through the pool all of them share.
 */
class StreamRuns {
  readonly #runner: SyncRunner;
  readonly #abort: LinkedAbort;
  readonly #streams: readonly Stream[];
  readonly #range: DayRange;
  readonly #onStream: ((summary: StreamSummary) => void) | undefined;
  readonly #limit: LimitFunction;
  readonly #graph: RunGraph;
  readonly #started = new Map<string, Promise<StreamSummary | null>>();
  /** The credential the upstream refused, once a partition was refused: the sync throws it. */
  #refused: AuthError | undefined;

  constructor(
    runner: SyncRunner,
    abort: LinkedAbort,
    streams: readonly Stream[],
    range: DayRange,
    onStream: ((summary: StreamSummary) => void) | undefined,
  ) {
    this.#runner = runner;
    this.#abort = abort;
    this.#streams = streams;
    this.#range = range;
    this.#onStream = onStream;
    this.#limit = pLimit(partitionsInFlight(runner.config.max_concurrency));
    this.#graph = runGraph(streams);
  }

  /** Runs every stream; the summaries, in `streams` order, once none is running any more. */
  async summaries(): Promise<StreamSummary[]> {
    // Started in planning order, so the partitions others wait for enter the pool first.
    for (const stream of this.#graph.order) void this.#start(stream.name);
    const settled = await Promise.allSettled(this.#streams.map((s) => this.#start(s.name)));
    if (this.#refused) throw this.#refused;
    const summaries: StreamSummary[] = [];
    for (const result of settled) {
      if (result.status === "rejected") throw result.reason;
      if (result.value) summaries.push(result.value);
    }
    return summaries;
  }

  /** The run of the stream `name`, started on the first call. */
  #start(name: string): Promise<StreamSummary | null> {
    let running = this.#started.get(name);
    if (!running) {
      const stream = this.#streams.find((s) => s.name === name);
      if (!stream) throw new Error(`no stream ${name} in this run`);
      running = this.#runStream(stream);
      this.#started.set(name, running);
    }
    return running;
  }

  /** Null when the sync stopped before the stream could start. */
  async #runStream(stream: Stream): Promise<StreamSummary | null> {
    await Promise.all((this.#graph.after.get(stream.name) ?? []).map((name) => this.#start(name)));
    const { signal } = this.#runner;
    if (signal.aborted) return null;
    const tally = new StreamTally(stream.name);
    for await (const slice of planPartitions(this.#runner, stream, this.#range)) {
      if (signal.aborted) break;
      const outcomes = await Promise.all(
        slice.map((partition) => this.#pool(stream, () => this.#syncPartition(stream, partition))),
      );
      tally.add(outcomes.filter((o): o is PartitionOutcome => o !== null));
    }
    await savePageSizes(this.#runner.db, this.#runner.pageSizes.takeChanged());
    const summary = tally.summary();
    this.#onStream?.(summary);
    return summary;
  }

  /**
   * The partitions others wait for are few and skip the pool's queue: behind a year of trends,
   * they would leave the streams planned from them idle until the end.
   */
  #pool<T>(stream: Stream, run: () => Promise<T>): Promise<T> {
    return this.#graph.awaited.has(stream.name) ? run() : this.#limit(run);
  }

  /** Null when the sync stopped before the partition's turn came. */
  async #syncPartition(stream: Stream, partition: Partition): Promise<PartitionOutcome | null> {
    if (this.#runner.signal.aborted) return null;
    const outcome = await syncPartition(this.#runner, stream, partition);
    if (outcome.error instanceof AuthError) {
      this.#refused = outcome.error;
      this.#abort.abort(this.#refused);
    }
    return outcome;
  }
}
