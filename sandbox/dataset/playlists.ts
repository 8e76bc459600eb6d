import { formatDay, instantOn } from "../days.js";
import { rngFor } from "../prng.js";
import type { ArtistTrack } from "./artist-tracks.js";
import { base62Id } from "./identifiers.js";
import { nameFor } from "./names.js";
import type { PlaylistEntry, SocialArtist } from "./records.js";

export const EDITORIAL_PLATFORMS = [
  "music_streaming_1",
  "music_streaming_3",
  "music_streaming_2",
  "music_streaming_4",
  "video",
] as const;
export const CURATOR_PLATFORMS = [
  "music_streaming_1",
  "music_streaming_3",
  "music_streaming_2",
] as const;
export const PLAYLIST_STATUSES = ["current", "past"] as const;

export type EditorialPlatform = (typeof EDITORIAL_PLATFORMS)[number];
export type CuratorPlatform = (typeof CURATOR_PLATFORMS)[number];
export type PlaylistStatus = (typeof PLAYLIST_STATUSES)[number];

export interface PlaylistSelection {
  kind: "editorial" | "curator";
  platform: string;
  status: PlaylistStatus;
  /** Most rows a selection has; each artist and platform get a share of it. */
  max: number;
  today: number;
}

/**
 * Playlist placements of an artist's tracks for one selection. Current placements were added in
 * the last 180 days; past ones were removed between 1 and 59 days after being added.
 */
export function playlistEntries(
  seed: number,
  artist: SocialArtist,
  tracks: readonly ArtistTrack[],
  selection: PlaylistSelection,
): PlaylistEntry[] {
  const { kind, platform, status, max, today } = selection;
  const artistShare = 0.3 + 0.7 * rngFor(seed, "playlist-artist", artist.cm_artist).next();
  const rng = rngFor(seed, "playlists", kind, artist.cm_artist, platform, status);
  const count = Math.round(max * artistShare * (0.5 + 0.5 * rng.next()));
  const entries: PlaylistEntry[] = [];
  for (let i = 0; i < count && tracks.length > 0; i++) {
    const track = rng.pick(tracks);
    const addedDay = status === "current" ? today - rng.int(0, 180) : today - rng.int(60, 720);
    const removedDay = Math.min(today, addedDay + rng.int(1, 59));
    const position = rng.int(1, 100);
    entries.push({
      playlist: {
        id:
          platform === "music_streaming_1"
            ? base62Id(rng, 22)
            : String(rng.int(1_000_000, 9_999_999_999)),
        name: nameFor(seed, "playlist", artist.cm_artist, i, kind === "editorial" ? 1 : 2),
        editorial: kind === "editorial",
        platform,
        owner_name:
          kind === "editorial"
            ? `${platform} editorial`
            : nameFor(seed, "person", artist.cm_artist, i),
        followers: Math.round(10 ** (2 + rng.next() * 5)),
        position,
        peak_position: rng.int(1, position),
        added_at: instantOn(addedDay, rng.int(0, 86_399)),
        removed_at: status === "past" ? instantOn(removedDay, rng.int(0, 86_399)) : null,
      },
      track: { id: track.id, name: track.name, isrc: track.isrc, artist_names: [artist.name] },
    });
  }
  return entries;
}

/** Entries added within [since, until] (YYYY-MM-DD, inclusive); null bounds are open. */
export function addedWithin(entries: PlaylistEntry[], since: number | null, until: number | null) {
  return entries.filter((entry) => {
    const added = entry.playlist.added_at.slice(0, 10);
    return (
      (since === null || added >= formatDay(since)) && (until === null || added <= formatDay(until))
    );
  });
}
