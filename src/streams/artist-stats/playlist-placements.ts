import { z } from "zod";
import { listEndpoint } from "../../api/endpoint.js";
import {
  CURATOR_PLATFORMS,
  type CuratorPlatform,
  EDITORIAL_PLATFORMS,
  type EditorialPlatform,
  PLAYLIST_STATUSES,
  type PlaylistStatus,
} from "../../api/enums.js";
import { oneOf, orderedRange, positiveInt } from "../../api/params.js";
import { toText, field } from "../../api/read-values.js";
import { type JsonRecord } from "../../json/json-record.js";
import type { RecordList } from "../../api/results.js";
import { product } from "../dimensions.js";
import { endpointStream } from "../endpoint-stream.js";
import { offsetPaging, pagingByPartition } from "../paging.js";
import type { PartitionSet } from "../partition-set.js";
import { OFFSET_LIMIT, SINCE_ORDER, SINCE_UNTIL } from "./statistics-params.js";
import { AFTER_TRACKED_ARTISTS, type ArtistPartition } from "./tracked-artists.js";

const editorialPlaylists = listEndpoint(
  "/artist-stats/editorial-playlists",
  z
    .object({
      artist_id: positiveInt,
      platform: oneOf(EDITORIAL_PLATFORMS).optional(),
      status: oneOf(PLAYLIST_STATUSES).optional(),
      ...SINCE_UNTIL,
      ...OFFSET_LIMIT,
    })
    .refine(orderedRange, SINCE_ORDER),
);

const curatorPlaylists = listEndpoint(
  "/artist-stats/curator-playlists",
  z.object({
    artist_id: positiveInt,
    platform: oneOf(CURATOR_PLATFORMS).optional(),
    ...OFFSET_LIMIT,
  }),
);

/** The two lists of the one stream, by a partition's kind. */
export const PLACEMENT_OPERATIONS = { editorial: editorialPlaylists, curator: curatorPlaylists };

/** Curator playlists are not split by status upstream: their rows carry this status. */
const CURATOR_STATUS = "all" as const;

/** One list of an artist's placements: editorial per platform × status, curator per platform. */
type PlacementPartition = ArtistPartition &
  (
    | {
        readonly kind: "editorial";
        readonly platform: EditorialPlatform;
        readonly status: PlaylistStatus;
      }
    | {
        readonly kind: "curator";
        readonly platform: CuratorPlatform;
        readonly status: typeof CURATOR_STATUS;
      }
  );

/**
 * Playlist id and track id (the ISRC when the track has no id): one playlist can hold several of
 * the artist's tracks. Null when either is missing (the runner then skips the entry).
 */
export function playlistKey(entry: JsonRecord): string | null {
  const playlist = toText(field(entry, "playlist", "id"));
  const track = toText(field(entry, "track", "id")) ?? toText(field(entry, "track", "isrc"));
  return playlist && track ? `${playlist}|${track}` : null;
}

/** Each list is paged by offset; the two operations learn their page sizes apart. */
const paging = pagingByPartition((partition: PlacementPartition) => partition.kind, {
  editorial: offsetPaging(editorialPlaylists.name, 100, "limit"),
  curator: offsetPaging(curatorPlaylists.name, 100, "limit"),
});

const PLACEMENTS: PartitionSet<PlacementPartition> = {
  plan: async (context) => {
    const { editorial_platforms, curator_platforms, statuses } =
      context.config.artist_stats.playlists;
    const artistId = await context.trackedArtistIds();
    return [
      ...product({
        artistId,
        kind: ["editorial"] as const,
        platform: editorial_platforms,
        status: statuses,
      }),
      // The curator lists have no status to ask for: one list per platform.
      ...product(
        { artistId, kind: ["curator"] as const, platform: curator_platforms },
        { status: CURATOR_STATUS },
      ),
    ];
  },
  after: AFTER_TRACKED_ARTISTS,
  scope: ({ artistId, kind, platform, status }) => ({
    artist_id: artistId,
    kind,
    platform,
    status,
  }),
};

/** The parameters of either list: a partition's kind chooses the operation, and its parameters. */
type ListParams = typeof curatorPlaylists.params | typeof editorialPlaylists.params;

export const playlistPlacements = endpointStream<
  PlacementPartition,
  ListParams,
  RecordList,
  JsonRecord,
  typeof paging
>({
  name: "artist_stats_playlist_placements",
  family: "artist_stats",
  partitions: PLACEMENTS,
  operation: ({ kind }) => (kind === "curator" ? curatorPlaylists : editorialPlaylists),
  params: (partition) =>
    partition.kind === "curator"
      ? { artist_id: partition.artistId, platform: partition.platform }
      : { artist_id: partition.artistId, platform: partition.platform, status: partition.status },
  paging,
  records: "list",
  table: "artist_stats.playlist_placements",
  key: ["artist_id", "kind", "platform", "status", "playlist_key", "snapshot_date"],
  mode: "snapshot",
  // Its key only: the spec shows no field of an entry, each is a discovered column.
  columns: (entry) => ({ playlist_key: playlistKey(entry) }),
});
