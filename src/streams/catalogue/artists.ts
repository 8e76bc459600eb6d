import type { CatalogueArtist } from "../../api/operations/catalogue.js";
import { defineStream, type FetchContext } from "../stream.js";
import {
  LOOKUP_PAGE_SIZE,
  type LookupPartition,
  lookupPartitions,
  nextLookupPage,
} from "./lookup-paging.js";

/** A catalogue artist and its id in the artist statistics API (null when unknown there). */
export interface ResolvedArtist {
  readonly artist: CatalogueArtist;
  readonly socialArtistId: number | null;
}

/**
 * The statistics API's id of each artist, one look-up at a time: partitions already run
 * `max_concurrency` at once, and the shared request budget, not latency, bounds the pace.
 */
async function resolve(
  { api, call }: FetchContext,
  artists: readonly CatalogueArtist[],
): Promise<ResolvedArtist[]> {
  const resolved: ResolvedArtist[] = [];
  for (const artist of artists) {
    // The operation takes positive integers only; an artist without one is not looked up.
    const socialArtistId =
      artist.id === null || artist.id < 1
        ? null
        : (await api.artistStats.artistIdFromIdentifiers({ artist_id: artist.id }, call))
            .socialArtistId;
    resolved.push({ artist, socialArtistId });
  }
  return resolved;
}

/** Catalogue artists by each configured name (a case-insensitive substring search). */
export const artists = defineStream<LookupPartition, ResolvedArtist>({
  name: "artists",
  family: "catalogue",
  partitions: ({ config }) => lookupPartitions("name", config.artist_names),
  fetch: async (context, { value }, cursor) => {
    const page = (cursor as number | null) ?? 0;
    const result = await context.api.catalogue.getArtistByName(
      { name: value, page, page_size: LOOKUP_PAGE_SIZE },
      context.call,
    );
    return { records: await resolve(context, result.records), next: nextLookupPage(page, result) };
  },
  outputs: [
    {
      target: {
        table: "catalogue.artists",
        key: ["artist_id"],
        columns: ["name", "organization_id", "proprietary_id", "social_artist_id", "raw"],
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
