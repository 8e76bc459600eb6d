import pLimit from "p-limit";
import { AuthError } from "../errors.js";
import { linkedAbort } from "../http/linked-abort.js";
import { type DayRange, planPartitions } from "./plan-partitions.js";
import { type PartitionOutcome, type RunnerDeps, runPartition } from "./run-partition.js";
import type { UntypedField } from "../api/untyped-values.js";
import type { Stream } from "./stream.js";
import { mergeUntyped } from "./untyped-report.js";

export interface StreamSummary {
  readonly stream: string;
  readonly partitions: number;
  readonly failed: readonly PartitionOutcome[];
  readonly requests: number;
  readonly rowsWritten: number;
  /** Values typed columns could not hold (kept in raw), by field, over the stream's partitions. */
  readonly untyped: readonly UntypedField[];
  readonly durationMs: number;
}

/**
 * Runs the streams in order (later ones may read what earlier ones wrote), each stream's
 * partitions `max_concurrency` at a time. A failed partition is recorded and the others go on;
 * a refused credential stops everything at once and is thrown.
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
  const runner = { ...deps, signal };
  let refused: AuthError | undefined;
  const limit = pLimit(deps.config.max_concurrency);
  const summaries: StreamSummary[] = [];
  try {
    for (const stream of streams) {
      const started = performance.now();
      // Tallied slice by slice: a stream's outcomes are never all held at once.
      const tally = { partitions: 0, requests: 0, rowsWritten: 0 };
      const failed: PartitionOutcome[] = [];
      let untyped: UntypedField[] = [];
      for await (const slice of planPartitions(deps, stream, range)) {
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
        const done = outcomes.filter((o): o is PartitionOutcome => o !== null);
        tally.partitions += done.length;
        for (const outcome of done) {
          tally.requests += outcome.requests;
          tally.rowsWritten += outcome.rowsWritten;
          if (outcome.status === "failed") failed.push(outcome);
        }
        untyped = mergeUntyped([untyped, ...done.map((o) => o.untyped)]);
      }
      const summary: StreamSummary = {
        stream: stream.name,
        ...tally,
        failed,
        untyped,
        durationMs: performance.now() - started,
      };
      summaries.push(summary);
      onStream?.(summary);
    }
  } finally {
    abort.close();
  }
  return summaries;
}
