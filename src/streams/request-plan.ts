import { requestHistory } from "../warehouse/sync-runs.js";
import { type DayRange, planPartitions } from "./plan-partitions.js";
import type { RunnerDeps } from "./run-partition.js";
import type { Stream } from "./stream.js";

/**
 * How a stream's request count was reached: exact (the stream knows each partition's requests),
 * history (partitions × the average of its latest successful attempts) or none (no attempt yet:
 * one request per partition, the least any partition takes).
 */
export type RequestBasis =
  | { readonly kind: "exact" }
  | { readonly kind: "history"; readonly attempts: number; readonly perPartition: number }
  | { readonly kind: "none" };

export interface StreamRequestPlan {
  readonly stream: string;
  readonly partitions: number;
  readonly requests: number;
  readonly basis: RequestBasis;
  /**
   * Streams this one is planned from that have not synced yet: its partitions are counted from
   * what the warehouse holds now, and a run will plan more.
   */
  readonly unsyncedSources: readonly string[];
}

/**
 * What a run of `streams` over `range` would fetch, planned exactly as the run plans it (same
 * partitions, same lookback), without a request to the upstream.
 */
export async function planRequests(
  deps: Pick<RunnerDeps, "db" | "config" | "today">,
  streams: readonly Stream[],
  range: DayRange,
): Promise<StreamRequestPlan[]> {
  const names = streams.flatMap((s) => [s.name, ...(s.after ?? [])]);
  const history = await requestHistory(deps.db, [...new Set(names)]);
  const plans: StreamRequestPlan[] = [];
  for (const stream of streams) {
    let partitions = 0;
    let exact = 0;
    for await (const slice of planPartitions(deps, stream, range)) {
      partitions += slice.length;
      if (stream.requests) for (const partition of slice) exact += stream.requests(partition);
    }
    const seen = history.get(stream.name);
    const basis: RequestBasis = stream.requests
      ? { kind: "exact" }
      : seen && seen.attempts > 0
        ? { kind: "history", attempts: seen.attempts, perPartition: seen.requests / seen.attempts }
        : { kind: "none" };
    plans.push({
      stream: stream.name,
      partitions,
      requests:
        basis.kind === "exact"
          ? exact
          : Math.round(partitions * (basis.kind === "history" ? basis.perPartition : 1)),
      basis,
      unsyncedSources: (stream.after ?? []).filter((source) => !history.has(source)),
    });
  }
  return plans;
}
