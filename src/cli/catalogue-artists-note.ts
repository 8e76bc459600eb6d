import type { EtlConfig } from "../config/etl-config-schema.js";
import { artists as catalogueArtists } from "../streams/catalogue/artists.js";
import type { RequestPlan } from "../runner/plan/request-plan.js";

/**
 * What a plan leaves out when the run it plans finds artists in a catalogue that has never been
 * synced and the plan could not ask the upstream what it finds, said in a line next to its total
 * (null when it leaves nothing out): each artist costs its per-artist requests, and a total that
 * leaves them out without a word would pass for the whole cost of the sync.
 */
export function catalogueArtistsNote(
  plan: RequestPlan,
  config: Pick<EtlConfig, "artist_names">,
): string | null {
  if (!plan.artists || plan.catalogue?.kind !== "unknown") return null;
  const searches = config.artist_names.length;
  const each = plan.artists.requestsEach;
  // A reason may be several lines (every missing setting): the note stays one.
  const reason = plan.catalogue.reason.replace(/\s*\n\s*/g, "; ");
  return (
    `the total leaves out the artists the catalogue will find: ${catalogueArtists.name} has not synced yet, ` +
    `and the plan could not ask what its ${searches} artist_names ${searches === 1 ? "search finds" : "searches find"} (${reason}). ` +
    `Add up to ${each + 1} requests for each artist found: a look-up, and ${each} of the per-artist streams if the statistics API knows it. ` +
    "Run `etl sync --only catalogue` first for a plan that counts them."
  );
}
