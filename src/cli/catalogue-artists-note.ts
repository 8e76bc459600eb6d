import type { EtlConfig } from "../config/etl-config-schema.js";
import { artists as catalogueArtists } from "../streams/catalogue/artists.js";
import type { RequestPlan } from "../streams/request-plan.js";
import type { Stream } from "../streams/stream.js";

/**
 * What a plan leaves out when the run it plans finds artists in a catalogue that has never been
 * synced, said in a line next to its total (null when it leaves nothing out): how many artists
 * `artist_names` finds is known only once it has, and each costs its per-artist requests: a total
 * that leaves them out without a word would pass for the whole cost of the sync.
 */
export function catalogueArtistsNote(
  plan: RequestPlan,
  streams: readonly Stream[],
  config: EtlConfig,
): string | null {
  const searches = config.artist_names.length;
  const findsArtists =
    plan.artists?.sources.includes(catalogueArtists.name) === true &&
    streams.some((s) => s.name === catalogueArtists.name) &&
    searches > 0;
  if (!plan.artists || !findsArtists) return null;
  return (
    `the total leaves out the artists the catalogue will find: ${catalogueArtists.name} has not synced yet, ` +
    `and its ${searches} artist_names ${searches === 1 ? "search" : "searches"} may find any number. ` +
    `Each adds a look-up, and ${plan.artists.requestsEach} requests of the per-artist streams if the statistics API knows it. ` +
    "Run `etl sync --only catalogue` first for a plan that counts them."
  );
}
