import { rngFor } from "../prng.js";
import { base62Id } from "./identifiers.js";
import { nameFor } from "./names.js";
import type { CatalogueArtist, SocialArtist } from "./records.js";
import { strideWalk } from "./stride-walk.js";

/**
 * Artists known to the statistics API. About three in four are linked to a distinct catalogue
 * artist (whose name they carry); the others exist only there, as on the real service.
 */
export function generateSocialArtists(
  seed: number,
  count: number,
  catalogue: readonly CatalogueArtist[],
): SocialArtist[] {
  const rng = rngFor(seed, "social-artists");
  const used = new Set<number>();
  const links = strideWalk(rng, catalogue.length, count);
  return Array.from({ length: count }, (_, i) => {
    const own = rngFor(seed, "social-artist", i);
    let cmArtist = 0;
    while (cmArtist === 0 || used.has(cmArtist)) {
      const digits = own.int(4, 7);
      cmArtist = own.int(10 ** (digits - 1), 10 ** digits - 1);
    }
    used.add(cmArtist);
    const link = links[i];
    const catalogueArtist = link !== undefined && own.chance(0.75) ? catalogue[link] : undefined;
    return {
      cm_artist: cmArtist,
      name: catalogueArtist?.name ?? nameFor(seed, "artist", 100_000 + i),
      music_streaming_1: base62Id(own, 22),
      music_streaming_2: own.chance(0.8) ? String(own.int(100_000, 999_999_999)) : null,
      artist_id: catalogueArtist?.id ?? null,
    };
  });
}
