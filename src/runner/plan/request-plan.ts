import type { ApiClient } from "../../api/api-client.js";
import { errorMessage } from "../../errors.js";
import type { CatalogueArtistLink } from "../../warehouse/artist-links.js";
import { type RequestHistory, requestHistory } from "../../warehouse/attempt-history.js";
import { artists } from "../../streams/artist-stats/artists.js";
import { type AskedCatalogueArtists, askCatalogueArtists } from "./asked-catalogue-artists.js";
import { artists as catalogueArtists } from "../../streams/catalogue/artists.js";
import {
  type ArtistProjection,
  projectTrackedArtists,
} from "../../streams/artist-stats/projected-artists.js";
import { type DayRange, planPartitions } from "./plan-partitions.js";
import type { RunnerDeps } from "../attempt-record.js";
import type { Stream } from "../../streams/stream.js";

/**
 * How a stream's request count was reached: exact (the stream knows each partition's requests),
 * asked (the plan sent them: a first run's catalogue artists), history (partitions × the average
 * of its latest successful attempts) or none (no attempt yet: one request per partition, the
 * least any partition takes).
 */
export type RequestBasis =
  | { readonly kind: "exact" }
  /** The plan made the stream's requests itself, to know what the run will find. */
  | { readonly kind: "asked" }
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
  /**
   * The catalogue's artists of a run that finds them first (null: none to find, or found
   * before): asked of the upstream, or unknown and why.
   */
  readonly catalogue: CatalogueArtistsKnowledge | null;
}

/** What a plan knows of the artists a first run's catalogue will find. */
export type CatalogueArtistsKnowledge =
  | ({ readonly kind: "asked" } & Omit<AskedCatalogueArtists, "links">)
  | { readonly kind: "unknown"; readonly reason: string };

export interface PlanDeps extends Pick<RunnerDeps, "db" | "config" | "today"> {
  /**
   * The upstream, connected when first called: a first run's plan asks it what the catalogue's
   * artists find. Without it, those artists are left out, and the plan says why.
   */
  readonly upstream?: () => Promise<ApiClient>;
}

const perArtist = (stream: Stream) => stream.after?.includes(artists.name) ?? false;

/** What the plan knows of the catalogue's artists, and their links where it asked them. */
interface CatalogueFinding {
  readonly knowledge: CatalogueArtistsKnowledge;
  readonly links?: readonly CatalogueArtistLink[];
}

/** The catalogue's artists, asked of the upstream; unknown, and why, when that cannot be done. */
async function catalogueKnowledge(
  deps: PlanDeps,
  stream: Stream,
  range: DayRange,
): Promise<CatalogueFinding> {
  if (!deps.upstream) return { knowledge: { kind: "unknown", reason: "no upstream to ask" } };
  try {
    const api = await deps.upstream();
    const { links, ...asked } = await askCatalogueArtists({ ...deps, api }, stream, range);
    return { knowledge: { kind: "asked", ...asked }, links };
  } catch (error) {
    return { knowledge: { kind: "unknown", reason: errorMessage(error) } };
  }
}

/**
 * What every stream's plan is made from, found once: the streams' history, and what the run finds
 * before it plans them (the catalogue's artists, the tracked artists).
 */
interface PlanGround {
  readonly deps: PlanDeps;
  readonly range: DayRange;
  readonly history: ReadonlyMap<string, RequestHistory>;
  /** Streams whose rows are as the run will find them: those synced, and those the plan asked. */
  readonly known: ReadonlySet<string>;
  /** The tracked artists, where the run finds them before it plans the per-artist streams. */
  readonly projection: ArtistProjection | null;
  /** The catalogue's artists, where the run finds them first (null otherwise). */
  readonly catalogue: CatalogueFinding | null;
  /** The catalogue's artists stream, where the run syncs it first: the plan sends its requests. */
  readonly finder?: Stream;
}

/**
 * The catalogue's artists stream, where the run syncs it before it plans the per-artist streams
 * and it has searches to make: a stream never synced, so the warehouse cannot tell what it finds.
 */
function firstCatalogueFinder(
  deps: PlanDeps,
  streams: readonly Stream[],
  history: ReadonlyMap<string, RequestHistory>,
): Stream | undefined {
  const finder = streams.find((s) => s.name === catalogueArtists.name);
  const findsFirst = finder && !history.has(finder.name) && deps.config.artist_names.length > 0;
  return findsFirst ? finder : undefined;
}

async function planGround(
  deps: PlanDeps,
  streams: readonly Stream[],
  range: DayRange,
): Promise<PlanGround> {
  const names = streams.flatMap((s) => [s.name, ...(s.after ?? [])]);
  const history = await requestHistory(deps.db, [...new Set([...names, ...(artists.after ?? [])])]);
  // A run finds the tracked artists before it plans them only when it syncs the stream that
  // finds them; otherwise (`--only` a per-artist stream) it plans from the table as it is.
  const projects = streams.some(perArtist) && streams.some((s) => s.name === artists.name);
  const finder = projects ? firstCatalogueFinder(deps, streams, history) : undefined;
  const catalogue = finder ? await catalogueKnowledge(deps, finder, range) : null;
  const known = new Set(history.keys());
  if (catalogue?.links) known.add(catalogueArtists.name);
  const projection = projects
    ? await projectTrackedArtists(deps.db, deps.config, known, catalogue?.links)
    : null;
  return { deps, range, history, known, projection, catalogue, finder };
}

/** The requests the plan sent for a stream itself (null: it sent none). */
function askedRequests(ground: PlanGround, stream: Stream): number | null {
  const knowledge = ground.catalogue?.knowledge;
  return stream === ground.finder && knowledge?.kind === "asked" ? knowledge.requests : null;
}

/** How a stream's requests are counted: see RequestBasis. */
function requestBasis(ground: PlanGround, stream: Stream): RequestBasis {
  const seen = ground.history.get(stream.name);
  if (askedRequests(ground, stream) !== null) return { kind: "asked" };
  if (stream.requests) return { kind: "exact" };
  if (seen && seen.attempts > 0) {
    return {
      kind: "history",
      attempts: seen.attempts,
      perPartition: seen.requests / seen.attempts,
    };
  }
  return { kind: "none" };
}

/**
 * A stream's partitions over the plan's range, and its requests by `basis`; per-artist streams
 * for `artistIds` (default: the artists the warehouse tracks).
 */
async function countRequests(
  ground: PlanGround,
  stream: Stream,
  basis: RequestBasis,
  artistIds?: readonly number[],
): Promise<{ partitions: number; requests: number }> {
  const links = ground.catalogue?.links;
  const trackedArtistIds = artistIds && (() => Promise.resolve(artistIds));
  const catalogueArtistLinks = links && (() => Promise.resolve(links));
  const options = { trackedArtistIds, catalogueArtistLinks };
  let partitions = 0;
  let exact = 0;
  for await (const slice of planPartitions(ground.deps, stream, ground.range, options)) {
    partitions += slice.length;
    if (stream.requests) for (const partition of slice) exact += stream.requests(partition);
  }
  const requests =
    askedRequests(ground, stream) ??
    (basis.kind === "exact"
      ? exact
      : Math.round(partitions * (basis.kind === "history" ? basis.perPartition : 1)));
  return { partitions, requests };
}

/** The streams a stream is planned from that may still add to its partitions. */
function unsyncedSources(ground: PlanGround, stream: Stream): string[] {
  const { projection, known } = ground;
  // The tracked artists are projected, not read: what may add to them is what they come from.
  return (stream.after ?? []).flatMap((source) =>
    source === artists.name && projection ? projection.sources : known.has(source) ? [] : [source],
  );
}

/**
 * What a run of `streams` over `range` would fetch, planned exactly as the run plans it (same
 * partitions, same lookback). Per-artist streams are planned for the artists the run would track
 * (projected: the run finds them before it plans them). No request reaches the upstream, but for
 * a run that finds the catalogue's artists first: those the plan asks for (`deps.upstream`), the
 * searches and look-ups of the catalogue's artists stream, which the run then makes again.
 */
export async function planRequests(
  deps: PlanDeps,
  streams: readonly Stream[],
  range: DayRange,
): Promise<RequestPlan> {
  const ground = await planGround(deps, streams, range);
  const { projection } = ground;
  const plans: StreamRequestPlan[] = [];
  let perArtistRequests = 0;
  for (const stream of streams) {
    const basis = requestBasis(ground, stream);
    // One artist no run tracks yet (a stand-in id): what each artist found adds.
    if (projection && perArtist(stream)) {
      perArtistRequests += (await countRequests(ground, stream, basis, [-1])).requests;
    }
    plans.push({
      stream: stream.name,
      ...(await countRequests(ground, stream, basis, projection?.ids)),
      basis,
      unsyncedSources: unsyncedSources(ground, stream),
    });
  }
  return {
    streams: plans,
    artists: projection && { ...projection, requestsEach: perArtistRequests },
    catalogue: ground.catalogue?.knowledge ?? null,
  };
}
