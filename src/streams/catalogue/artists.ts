import type { Exchange } from "../../api/api-client.js";
import { artistIdFromIdentifiers } from "../../api/operations/artist-stats.js";
import { type CatalogueArtist, getArtistByName } from "../../api/operations/catalogue.js";
import { listRead } from "../list-read.js";
import type { PageNumberParams } from "../paging.js";
import { defineStream, type FetchContext, type PageAsk } from "../stream.js";
import { LOOKUP_PAGING, type LookupPartition, lookupPartitions } from "./lookups.js";

/** A catalogue artist and its id in the artist statistics API (null when unknown there). */
export interface ResolvedArtist {
  readonly artist: CatalogueArtist;
  readonly socialArtistId: number | null;
}

/** The operation takes positive integers only; an artist without one is not looked up. */
function resolvable(artist: CatalogueArtist): artist is CatalogueArtist & { id: number } {
  return artist.id !== null && artist.id >= 1;
}

/**
 * A page of artists, then the statistics API's id of each, all looked up at once: the shared
 * request budget caps how many are in flight, and the artist statistics streams wait for this
 * one, so its latency is on a run's critical path. Every answer is part of the page, in the
 * page's order, so a replay resolves the same artists the same way.
 */
async function fetchPage(
  { api, call }: FetchContext,
  name: string,
  page: PageAsk<PageNumberParams>,
): Promise<Exchange[]> {
  const lookup = await page.exchange(getArtistByName, { name });
  const artists = getArtistByName.parse(lookup.body).records.filter(resolvable);
  // Settled, not raced: a failed look-up fails the page only once none is still in flight.
  const resolutions = await Promise.allSettled(
    artists.map((artist) => api.exchange(artistIdFromIdentifiers, { artist_id: artist.id }, call)),
  );
  const failed = resolutions.find((r) => r.status === "rejected");
  if (failed) throw failed.reason;
  return [lookup, ...resolutions.map((r) => (r as PromiseFulfilledResult<Exchange>).value)];
}

/** Catalogue artists by each configured name (a case-insensitive substring search). */
export const artists = defineStream<LookupPartition, ResolvedArtist, typeof LOOKUP_PAGING>({
  name: "artists",
  family: "catalogue",
  paging: LOOKUP_PAGING,
  partitions: ({ config }) => lookupPartitions("name", config.artist_names),
  fetch: (context, { value }, page) => fetchPage(context, value, page),
  read: ([lookup, ...resolutions]) => {
    if (!lookup) throw new Error("a page without a response");
    const result = getArtistByName.parse(lookup.body);
    const resolved = new Map(
      resolutions.map((exchange) => [
        Number(exchange.params.artist_id),
        artistIdFromIdentifiers.parse(exchange.body).socialArtistId,
      ]),
    );
    const records = result.records.map((artist) => ({
      artist,
      socialArtistId: artist.id === null ? null : (resolved.get(artist.id) ?? null),
    }));
    return listRead({ ...result, records });
  },
  outputs: [
    {
      target: {
        table: "catalogue.artists",
        key: ["artist_id"],
      },
      mode: "upsert",
      rows: ({ artist, socialArtistId }) => [
        {
          artist_id: artist.id,
          name: artist.name,
          organization_id: artist.organizationId,
          proprietary_id: artist.proprietaryId,
          social_artist_id: socialArtistId,
          raw: artist.raw,
        },
      ],
    },
  ],
});
