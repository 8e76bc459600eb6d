import type { Answer } from "../../api/api-client.js";
import { oneOrMany, toText } from "../../api/read-values.js";
import { asRecord } from "../../json/json-record.js";
import { toObjectAnswer } from "../../api/results.js";
import { UpstreamStatusError } from "../../http/upstream-errors.js";
import { NO_PAGING } from "../paging.js";
import { defineStream, type FetchContext } from "../stream.js";
import { type Partition } from "../partition.js";
import { toArrayLiteral } from "../../warehouse/array-literal.js";
import type { CatalogueArtistLink } from "../../warehouse/artist-links.js";
import { artistIdOperation } from "./artist-id-lookup.js";
import { cmStatsOperation } from "./cm-stats.js";

/** How an artist was found, in the order found_via lists them. */
const WAYS = ["config", "streaming_id", "catalogue_artist"] as const;
type Way = (typeof WAYS)[number];

/**
 * The single partition: the configured ids and the catalogue's links, read while planning (fetch
 * has no database), and kept with the partition so a replay tracks the same artists.
 */
interface TrackingPartition extends Partition {
  readonly socialArtistIds: readonly number[];
  readonly streamingArtistIds: readonly string[];
  readonly catalogue: readonly CatalogueArtistLink[];
}

/**
 * One tracked artist with every way it was found; a null id is a streaming id that resolved to
 * nothing.
 */
interface TrackedArtist {
  readonly artistId: number | null;
  readonly ways: Set<Way>;
  readonly streamingIds: string[];
  readonly catalogueArtistIds: string[];
  /** The /artist-id answers that resolved the artist, by streaming id. */
  readonly lookups: Record<string, unknown>;
  /** The first name the statistics API gave it (an /artist-id answer, then /cm-stats). */
  statisticsName: string | null;
  /** The name of its catalogue artist of the lowest id that has one. */
  catalogueName: string | null;
}

/**
 * The artists no catalogue artist names, found through the configuration or the catalogue,
 * ascending: the statistics API is asked for their names (/cm-stats). Known before fetching, so
 * the plan counts the requests exactly; an artist found by a streaming id has the name its
 * /artist-id answer gives.
 */
function unnamedArtistIds({ socialArtistIds, catalogue }: TrackingPartition): number[] {
  const named = new Set(catalogue.filter((link) => link.name).map((link) => link.socialArtistId));
  const ids = [...socialArtistIds, ...catalogue.map((link) => link.socialArtistId)];
  return [...new Set(ids)].filter((id) => !named.has(id)).sort((a, b) => a - b);
}

/**
 * The artist's summary, for its name; null when the statistics API does not know the artist
 * (404): it has no name to give, and its other statistics fail on their own partitions.
 */
async function summaryOf({ api, call }: FetchContext, id: number): Promise<Answer | null> {
  try {
    return await api.send(cmStatsOperation, { artist_id: id }, call);
  } catch (error) {
    if (error instanceof UpstreamStatusError && error.status === 404) return null;
    throw error;
  }
}

/** The name in a /cm-stats answer: of the summary, or of its first element that has one. */
function summaryName(body: unknown): string | null {
  for (const element of oneOrMany(toObjectAnswer(body).data)) {
    const name = toText(asRecord(element)?.name);
    if (name !== null) return name;
  }
  return null;
}

export const artists = defineStream<TrackingPartition, TrackedArtist>({
  name: "artist_stats_artists",
  family: "artist_stats",
  paging: NO_PAGING,
  // The catalogue's artists link to social ids.
  after: ["artists"],
  partitions: async (context) => [
    {
      key: "tracked",
      socialArtistIds: context.config.social_artist_ids,
      streamingArtistIds: context.config.streaming_artist_ids,
      // Linked by the catalogue family, written earlier in the sync.
      catalogue: await context.catalogueArtistLinks(),
    },
  ],
  requests: (partition) => partition.streamingArtistIds.length + unnamedArtistIds(partition).length,
  // One look-up per streaming id, in the configured order; then the summaries, all at once (the
  // shared request budget caps how many are in flight): every per-artist stream waits for this
  // one. Settled, not raced: a failed one fails the page only once none is still in flight.
  fetch: async (context, partition) => {
    const { api, call } = context;
    const answers: Answer[] = [];
    for (const id of partition.streamingArtistIds) {
      answers.push(await api.send(artistIdOperation, { id }, call));
    }
    const summaries = await Promise.allSettled(
      unnamedArtistIds(partition).map((id) => summaryOf(context, id)),
    );
    for (const summary of summaries) {
      if (summary.status === "rejected") throw summary.reason;
      if (summary.value) answers.push(summary.value);
    }
    return answers;
  },
  read: (answers, { socialArtistIds, streamingArtistIds, catalogue }) => {
    const lookups = answers.filter((answer) => answer.operation === artistIdOperation.name);
    const found = new Map<number, TrackedArtist>();
    const unresolved: TrackedArtist[] = [];
    const artist = (id: number): TrackedArtist => {
      let entry = found.get(id);
      if (!entry) {
        entry = {
          artistId: id,
          ways: new Set(),
          streamingIds: [],
          catalogueArtistIds: [],
          lookups: {},
          statisticsName: null,
          catalogueName: null,
        };
        found.set(id, entry);
      }
      return entry;
    };
    for (const id of socialArtistIds) artist(id).ways.add("config");
    for (const [i, id] of streamingArtistIds.entries()) {
      const body = lookups[i]?.body;
      const lookup = artistIdOperation.parse(body);
      if (lookup.socialArtistId === null) {
        // A record without a key: the load quarantines it with its reason.
        unresolved.push({
          artistId: null,
          ways: new Set(["streaming_id"]),
          streamingIds: [id],
          catalogueArtistIds: [],
          lookups: { [id]: body },
          statisticsName: null,
          catalogueName: null,
        });
        continue;
      }
      const entry = artist(lookup.socialArtistId);
      entry.ways.add("streaming_id");
      entry.streamingIds.push(id);
      entry.lookups[id] = body;
      entry.statisticsName ??= lookup.name;
    }
    for (const link of catalogue) {
      const entry = artist(link.socialArtistId);
      entry.ways.add("catalogue_artist");
      entry.catalogueArtistIds.push(link.catalogueArtistId);
      entry.catalogueName ??= link.name ?? null;
    }
    for (const summary of answers) {
      if (summary.operation !== cmStatsOperation.name) continue;
      const entry = found.get(Number(summary.params.artist_id));
      if (entry) entry.statisticsName ??= summaryName(summary.body);
    }
    return { records: [...found.values(), ...unresolved] };
  },
  outputs: [
    {
      target: {
        table: "artist_stats.artists",
        key: ["artist_id"],
      },
      // The one partition is the whole table: an artist no longer found any way is dropped, so
      // its statistics stop syncing (what was synced stays in the other tables).
      mode: "replace",
      scope: () => ({}),
      rows: (artist) => [
        {
          artist_id: artist.artistId,
          found_via: toArrayLiteral(WAYS.filter((way) => artist.ways.has(way))),
          streaming_artist_ids: toArrayLiteral([...artist.streamingIds].sort()),
          catalogue_artist_ids: toArrayLiteral(artist.catalogueArtistIds),
          name: artist.statisticsName ?? artist.catalogueName,
          raw: artist.lookups,
        },
      ],
    },
  ],
});
