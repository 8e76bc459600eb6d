import { formatDay } from "../days.js";
import { rngFor } from "../prng.js";
import type { ArtistTrack } from "./artist-tracks.js";
import { nameFor } from "./names.js";
import type { RadioAirplay, RadioSpin, SocialArtist } from "./records.js";
import { TERRITORIES } from "./territories.js";

const FORMATS = ["CHR/Pop", "Hot AC", "Urban", "Rhythmic", "Alternative", "Country", "Dance"];
const STATION_POOL = 40;

function station(seed: number, index: number) {
  const rng = rngFor(seed, "station", index);
  const territory = rng.pick(TERRITORIES);
  return {
    name: nameFor(seed, "station", index),
    city: `${territory.name} ${rng.pick(["North", "Central", "South", "Metro"])}`,
    country_code: territory.code,
    format: rng.pick(FORMATS),
  };
}

/**
 * Airplays of the artist's tracks on one day. Rows have no natural id: the same station and
 * track may appear more than once (separate reports of the same day).
 */
export function radioAirplays(
  seed: number,
  artist: SocialArtist,
  tracks: readonly ArtistTrack[],
  day: number,
): RadioAirplay[] {
  const rng = rngFor(seed, "radio-airplays", artist.cm_artist, day);
  if (tracks.length === 0) return [];
  return Array.from({ length: rng.int(0, 25) }, () => {
    const { name, city, country_code } = station(seed, rng.int(0, STATION_POOL - 1));
    const track = rng.pick(tracks);
    return {
      station: { name, city, country_code },
      track: { name: track.name, isrc: track.isrc },
      plays: rng.int(1, 12),
      date: formatDay(day),
    };
  });
}

/** Spins of the artist per station and market on one day; rows have no natural id either. */
export function radioSpins(seed: number, artist: SocialArtist, day: number): RadioSpin[] {
  const rng = rngFor(seed, "radio", artist.cm_artist, day);
  return Array.from({ length: rng.int(0, 20) }, () => {
    const { name, city, format } = station(seed, rng.int(0, STATION_POOL - 1));
    return {
      station_name: name,
      market: city,
      format,
      spins: rng.int(1, 30),
      audience: rng.int(1_000, 2_000_000),
      date: formatDay(day),
    };
  });
}
