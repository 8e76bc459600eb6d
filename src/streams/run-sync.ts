import pLimit from "p-limit";
import { AuthError } from "../errors.js";
import { linkedAbort } from "../http/linked-abort.js";
import { loadPageSizes, savePageSizes } from "../warehouse/page-sizes.js";
import { PageSizes } from "./page-sizes.js";
import { type DayRange, planPartitions } from "./plan-partitions.js";
import { type PartitionOutcome, type RunnerDeps, runPartition } from "./run-partition.js";
import type { Stream } from "./stream.js";
import { type StreamSummary, StreamTally } from "./stream-tally.js";

export type { StreamSummary } from "./stream-tally.js";

/**
 * Runs the streams in order (later ones may read what earlier ones wrote), each stream's
 * partitions `max_concurrency` at a time. A failed partition is recorded and the others go on;
 * a refused credential stops everything at once and is thrown; the caller's signal (a shutdown)
 * stops it too, and the summaries count what was interrupted. Either way it returns or throws
 * only once no partition is running any more, so the caller may release what they use.
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
  const limit = pLimit(deps.config.max_concurrency);
  const summaries: StreamSummary[] = [];
  try {
    for (const stream of streams) {
      if (signal.aborted) break;
      const tally = new StreamTally(stream.name);
      for await (const slice of planPartitions(deps, stream, range)) {
        if (signal.aborted) break;
        const outcomes = await Promise.all(
          slice.map((partition) =>
            limit(async () => {
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
        if (refused) throw refused;
        tally.add(outcomes.filter((o): o is PartitionOutcome => o !== null));
      }
      await savePageSizes(deps.db, pageSizes.takeChanged());
      const summary = tally.summary();
      summaries.push(summary);
      onStream?.(summary);
    }
  } finally {
    abort.close();
  }
  return summaries;
}
