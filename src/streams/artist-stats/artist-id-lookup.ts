// The two look-ups of the statistics' own artist id: the tracked artists resolve the configured
// streaming ids with the first, the catalogue's artists find theirs with the second; both answer
// the same record, read once here.
import { z } from "zod";
import { unwrapObject } from "../../api/list-page.js";
import { API_PREFIX, defineOperation } from "../../api/operation.js";
import { nonEmptyText } from "../../api/params.js";
import { oneOrMany, toInteger, toText } from "../../api/read-values.js";
import { asRecord } from "../../json/json-record.js";
import { byArtist } from "./statistics-params.js";

export interface ArtistIdLookup {
  /** The social artist id (`cm_artist`) the statistics operations take, when one was found. */
  readonly socialArtistId: number | null;
  /** The name the statistics API gives that artist, when its record carries one. */
  readonly name: string | null;
  readonly raw: unknown;
}

/**
 * `{obj: [{cm_artist, name, ...}]}` or `{obj: {cm_artist, name, ...}}`; `id` is accepted as a
 * fallback. The first record with an id is the artist.
 */
function toArtistIdLookup(body: unknown): ArtistIdLookup {
  const inner = unwrapObject(body);
  for (const candidate of oneOrMany(inner)) {
    const record = asRecord(candidate);
    const id = record ? toInteger(record.cm_artist ?? record.id) : null;
    if (record && id !== null) return { socialArtistId: id, name: toText(record.name), raw: body };
  }
  return { socialArtistId: null, name: null, raw: body };
}

/** The statistics' artist of a streaming service's artist id. */
export const artistIdOperation = defineOperation({
  name: "artistStats.artistId",
  params: z.object({ id: nonEmptyText }),
  request: (query) => ({ method: "GET", path: `${API_PREFIX}/artist-stats/artist-id`, query }),
  parse: toArtistIdLookup,
});

/** The statistics' artist of a catalogue artist's id. */
export const artistIdFromIdentifiersOperation = defineOperation({
  name: "artistStats.artistIdFromIdentifiers",
  params: byArtist,
  request: (query) => ({
    method: "GET",
    path: `${API_PREFIX}/artist-stats/artist-id-from-identifiers`,
    query,
  }),
  parse: toArtistIdLookup,
});
