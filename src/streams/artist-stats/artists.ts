import { artistId } from "../../api/operations/artist-stats.js";
import { NO_PAGING } from "../paging.js";
import { defineStream, type Partition } from "../stream.js";
import { toArrayLiteral } from "../../warehouse/array-literal.js";
import type { CatalogueArtistLink } from "../../warehouse/tracked-artists.js";

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
  requests: ({ streamingArtistIds }) => streamingArtistIds.length,
  // One look-up per streaming id, in the configured order.
  fetch: async ({ api, call }, { streamingArtistIds }) => {
    const exchanges = [];
    for (const id of streamingArtistIds) exchanges.push(await api.exchange(artistId, { id }, call));
    return exchanges;
  },
  read: (exchanges, { socialArtistIds, streamingArtistIds, catalogue }) => {
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
        };
        found.set(id, entry);
      }
      return entry;
    };
    for (const id of socialArtistIds) artist(id).ways.add("config");
    for (const [i, id] of streamingArtistIds.entries()) {
      const body = exchanges[i]?.body;
      const lookup = artistId.parse(body);
      if (lookup.socialArtistId === null) {
        // A record without a key: the load quarantines it with its reason.
        unresolved.push({
          artistId: null,
          ways: new Set(["streaming_id"]),
          streamingIds: [id],
          catalogueArtistIds: [],
          lookups: { [id]: body },
        });
        continue;
      }
      const entry = artist(lookup.socialArtistId);
      entry.ways.add("streaming_id");
      entry.streamingIds.push(id);
      entry.lookups[id] = body;
    }
    for (const link of catalogue) {
      const entry = artist(link.socialArtistId);
      entry.ways.add("catalogue_artist");
      entry.catalogueArtistIds.push(link.catalogueArtistId);
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
          raw: artist.lookups,
        },
      ],
    },
  ],
});
