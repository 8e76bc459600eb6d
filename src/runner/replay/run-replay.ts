import pLimit from "p-limit";
import { replaySources, type ReplaySourceRow } from "../../warehouse/replay-sources.js";
import { PageSizes } from "../../streams/page-sizes.js";
import type { DayRange } from "../plan/plan-partitions.js";
import type { RunnerDeps } from "../attempt-record.js";
import { replayPartition } from "./replay-partition.js";
import { ReplayResponses } from "./replay-responses.js";
import { type PartitionOutcome } from "../partition-outcome.js";
import { type StreamSummary, StreamTally } from "../stream-tally.js";
import type { Stream } from "../../streams/stream.js";

export type ReplayDeps = Omit<RunnerDeps, "api"> & {
  /** Whether a link in a stored response leads to the upstream (see linkPath). */
  readonly ownsLink: (link: string) => boolean;
};

/**
 * Which earlier syncs a replay loads again. A replaced list is whole in its last sync; a
 * snapshot keeps one copy per day, so the last sync of each day; merged rows (a series fetched
 * window by window) need every sync, oldest first, for the last value of each row to win.
 */
export function replayScope(stream: Stream): "partition" | "day" | "all" {
  if (stream.outputs.every((output) => output.mode === "replace")) return "partition";
  if (stream.outputs.some((output) => output.mode === "snapshot")) return "day";
  return "all";
}

/**
 * Runs the load stage again over stored responses, with no upstream request: for each stream,
 * the syncs that `replayScope` picks (within the range: daily partitions by their day, others by
 * the day they were fetched), each in its own partition transactions with an audit row of kind
 * replay. Partitions run `max_concurrency` at a time; the syncs of one partition in order. The
 * first load of each partition releases its quarantine, so records now storable leave it.
 */
export async function runReplay(
  deps: ReplayDeps,
  streams: readonly Stream[],
  range: DayRange,
  onStream?: (summary: StreamSummary) => void,
): Promise<StreamSummary[]> {
  const limit = pLimit(deps.config.max_concurrency);
  const runner = { ...deps, pageSizes: new PageSizes({ replay: true }) };
  const summaries: StreamSummary[] = [];
  for (const stream of streams) {
    const tally = new StreamTally(stream.name);
    const released = new Set<string>();
    for await (const slice of replaySources(deps.db, stream.name, replayScope(stream), range)) {
      const byPartition = new Map<string, ReplaySourceRow[]>();
      for (const row of slice) {
        const rows = byPartition.get(row.partition);
        if (rows) rows.push(row);
        else byPartition.set(row.partition, [row]);
      }
      const partitions = [...byPartition.values()];
      const stored = new ReplayResponses(deps.db, partitions.flat());
      const outcomes = await Promise.all(
        partitions.map((rows) =>
          limit(async () => {
            const done: PartitionOutcome[] = [];
            for (const row of rows) {
              if (deps.signal?.aborted) break;
              const first = !released.has(row.partition);
              released.add(row.partition);
              const responses = await stored.of(row);
              done.push(
                await replayPartition(runner, stream, {
                  attemptId: row.attemptId,
                  partition: { ...(row.partitionData as object), key: row.partition },
                  extractedOn: row.extractedOn,
                  responses,
                  missingResponses: row.responseIds.length - responses.length,
                  pages: row.pages,
                  releaseQuarantine: first,
                }),
              );
            }
            return done;
          }),
        ),
      );
      tally.add(outcomes.flat());
    }
    const summary = tally.summary();
    summaries.push(summary);
    onStream?.(summary);
  }
  return summaries;
}
