import { requestHistory } from "../warehouse/sync-runs.js";
import { artists } from "./artist-stats/artists.js";
import { type ArtistProjection, projectTrackedArtists } from "./artist-stats/projected-artists.js";
import { type DayRange, planPartitions } from "./plan-partitions.js";
import type { RunnerDeps } from "./attempt-record.js";
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

export interface RequestPlan {
  readonly streams: readonly StreamRequestPlan[];
  /**
   * The artists the per-artist streams are planned for, where the run would find them first, and
   * the requests an artist not tracked yet adds: what each artist a catalogue not synced yet
   * links will add.
   */
  readonly artists: (ArtistProjection & { readonly requestsEach: number }) | null;
}

const perArtist = (stream: Stream) => stream.after?.includes(artists.name) ?? false;

/**
 * What a run of `streams` over `range` would fetch, planned exactly as the run plans it (same
 * partitions, same lookback), without a request to the upstream. Per-artist streams are planned
 * for the artists the run would track (projected: the run finds them before it plans them).
 */
export async function planRequests(
  deps: Pick<RunnerDeps, "db" | "config" | "today">,
  streams: readonly Stream[],
  range: DayRange,
): Promise<RequestPlan> {
  const names = streams.flatMap((s) => [s.name, ...(s.after ?? [])]);
  const history = await requestHistory(deps.db, [...new Set([...names, ...(artists.after ?? [])])]);
  // A run finds the tracked artists before it plans them only when it syncs the stream that
  // finds them; otherwise (`--only` a per-artist stream) it plans from the table as it is.
  const projection =
    streams.some(perArtist) && streams.some((s) => s.name === artists.name)
      ? await projectTrackedArtists(deps.db, deps.config, new Set(history.keys()))
      : null;
  const plans: StreamRequestPlan[] = [];
  let perArtistRequests = 0;
  for (const stream of streams) {
    const seen = history.get(stream.name);
    const basis: RequestBasis = stream.requests
      ? { kind: "exact" }
      : seen && seen.attempts > 0
        ? { kind: "history", attempts: seen.attempts, perPartition: seen.requests / seen.attempts }
        : { kind: "none" };
    const count = async (artistIds?: readonly number[]) => {
      const trackedArtistIds = artistIds && (() => Promise.resolve(artistIds));
      let partitions = 0;
      let exact = 0;
      for await (const slice of planPartitions(deps, stream, range, { trackedArtistIds })) {
        partitions += slice.length;
        if (stream.requests) for (const partition of slice) exact += stream.requests(partition);
      }
      const requests =
        basis.kind === "exact"
          ? exact
          : Math.round(partitions * (basis.kind === "history" ? basis.perPartition : 1));
      return { partitions, requests };
    };
    if (projection && perArtist(stream)) perArtistRequests += (await count([-1])).requests;
    // The tracked artists are projected, not read: what may add to them is what they come from.
    const sources = (stream.after ?? []).flatMap((source) =>
      source === artists.name && projection
        ? projection.sources
        : history.has(source)
          ? []
          : [source],
    );
    plans.push({
      stream: stream.name,
      ...(await count(projection?.ids)),
      basis,
      unsyncedSources: sources,
    });
  }
  return {
    streams: plans,
    artists: projection && { ...projection, requestsEach: perArtistRequests },
  };
}
