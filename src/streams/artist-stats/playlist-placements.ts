import {
  CURATOR_PLATFORMS,
  type CuratorPlatform,
  EDITORIAL_PLATFORMS,
  type EditorialPlatform,
  PLAYLIST_STATUSES,
  type PlaylistStatus,
} from "../../api/enums.js";
import { type JsonRecord, toInteger, toText } from "../../api/extract.js";
import type { RecordList } from "../../api/results.js";
import { nextOffset } from "../paging.js";
import { defineStream, type FetchContext } from "../stream.js";
import { type ArtistPartition, artistPartitions } from "./tracked-artists.js";
import { field, toInstant } from "../typed-values.js";

const PAGE_SIZE = 100;
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

function placementScope({ artistId, kind, platform, status }: PlacementPartition) {
  return { artist_id: artistId, kind, platform, status };
}

/**
 * Playlist id and track id (the ISRC when the track has no id): one playlist can hold several of
 * the artist's tracks. Null when either is missing (the runner then skips the entry).
 */
export function playlistKey(entry: JsonRecord): string | null {
  const playlist = toText(field(entry, "playlist", "id"));
  const track = toText(field(entry, "track", "id")) ?? toText(field(entry, "track", "isrc"));
  return playlist && track ? `${playlist}|${track}` : null;
}

function fetchList(
  { api, call }: FetchContext,
  partition: PlacementPartition,
  offset: number,
): Promise<RecordList> {
  const paging = { artist_id: partition.artistId, offset, limit: PAGE_SIZE };
  return partition.kind === "curator"
    ? api.artistStats.curatorPlaylists({ ...paging, platform: partition.platform }, call)
    : api.artistStats.editorialPlaylists(
        { ...paging, platform: partition.platform, status: partition.status },
        call,
      );
}

export const playlistPlacements = defineStream<PlacementPartition, JsonRecord>({
  name: "artist_stats_playlist_placements",
  family: "artist_stats",
  partitions: async (context) =>
    (await artistPartitions(context)).flatMap((artist) => [
      ...EDITORIAL_PLATFORMS.flatMap((platform) =>
        PLAYLIST_STATUSES.map((status) => ({
          ...artist,
          key: `${artist.key}|editorial|${platform}|${status}`,
          kind: "editorial" as const,
          platform,
          status,
        })),
      ),
      ...CURATOR_PLATFORMS.map((platform) => ({
        ...artist,
        key: `${artist.key}|curator|${platform}`,
        kind: "curator" as const,
        platform,
        status: CURATOR_STATUS,
      })),
    ]),
  fetch: async (context, partition, cursor) => {
    const offset = (cursor as number | null) ?? 0;
    const { records } = await fetchList(context, partition, offset);
    return { records, next: nextOffset(offset, records.length, PAGE_SIZE) };
  },
  outputs: [
    {
      target: {
        table: "artist_stats.playlist_placements",
        key: ["artist_id", "kind", "platform", "status", "playlist_key", "snapshot_date"],
        columns: [
          "playlist_id",
          "playlist_name",
          "owner_name",
          "playlist_followers",
          "position_in_playlist",
          "peak_position_in_playlist",
          "added_at",
          "removed_at",
          "track_id",
          "track_name",
          "isrc",
          "raw",
        ],
      },
      mode: "snapshot",
      scope: placementScope,
      rows: (entry, partition) => [
        {
          ...placementScope(partition),
          playlist_key: playlistKey(entry),
          playlist_id: toText(field(entry, "playlist", "id")),
          playlist_name: toText(field(entry, "playlist", "name")),
          owner_name: toText(field(entry, "playlist", "owner_name")),
          playlist_followers: toInteger(field(entry, "playlist", "followers")),
          position_in_playlist: toInteger(field(entry, "playlist", "position")),
          peak_position_in_playlist: toInteger(field(entry, "playlist", "peak_position")),
          added_at: toInstant(field(entry, "playlist", "added_at")),
          removed_at: toInstant(field(entry, "playlist", "removed_at")),
          track_id: toText(field(entry, "track", "id")),
          track_name: toText(field(entry, "track", "name")),
          isrc: toText(field(entry, "track", "isrc")),
          raw: entry,
        },
      ],
    },
  ],
});
