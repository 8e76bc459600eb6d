import { rngFor } from "../prng.js";
import { base62Id, isrcCode, registrantCode } from "./identifiers.js";
import { nameFor } from "./names.js";
import type { Product, SocialArtist } from "./records.js";

export interface ArtistTrack {
  /** Track id on the streaming platforms. */
  id: string;
  name: string;
  isrc: string;
}

/**
 * The tracks playlists and radio report for an artist: its catalogue assets when it is linked
 * to a catalogue artist with products (so ISRCs join across groups), otherwise tracks of its own.
 */
export function artistTracks(
  seed: number,
  artist: SocialArtist,
  products: readonly Product[],
): ArtistTrack[] {
  const rng = rngFor(seed, "artist-tracks", artist.cm_artist);
  const owned = products
    .filter((product) => product.artist_id === artist.artist_id)
    .flatMap((product) => product.assets)
    .slice(0, 40);
  if (owned.length > 0) {
    return owned.map((asset) => ({ id: base62Id(rng, 22), name: asset.title, isrc: asset.isrc }));
  }
  const registrant = registrantCode(rng);
  return Array.from({ length: rng.int(3, 15) }, (_, i) => ({
    id: base62Id(rng, 22),
    name: nameFor(seed, "track", artist.cm_artist, i),
    isrc: isrcCode("QZ", registrant, i),
  }));
}
