import { z } from "zod";
import type { Answer } from "../../api/api-client.js";
import { API_PREFIX, defineOperation, segment } from "../../api/operation.js";
import { nonEmptyText } from "../../api/params.js";
import { toInteger, toText } from "../../api/read-values.js";
import type { JsonRecord } from "../../json/json-record.js";
import { listRecords } from "../record-selectors.js";
import type { PageNumberParams } from "../paging.js";
import { defineStream, type FetchContext, type PageFetch } from "../stream.js";
import { artistIdFromIdentifiersOperation } from "../artist-stats/artist-id-lookup.js";
import {
  LOOKUP_PAGING,
  LOOKUP_PARAMS,
  lookupPage,
  type LookupPartition,
  lookupPartitions,
} from "./lookups.js";

/** The artists whose name contains `name`. */
export const getArtistByNameOperation = defineOperation({
  name: "catalogue.getArtistByName",
  params: z.object({ name: nonEmptyText, ...LOOKUP_PARAMS }),
  request: ({ name, page, page_size }) => ({
    method: "GET",
    path: `${API_PREFIX}/getArtistByName/${segment(name)}`,
    query: { page, page_size },
  }),
  parse: (body) => lookupPage(body, "artist"),
});

/** A catalogue artist and its id in the artist statistics API (null when unknown there). */
export interface ResolvedArtist {
  /** The catalogue's record as received: what untyped values are named within. */
  readonly raw: JsonRecord;
  readonly socialArtistId: number | null;
}

/** The id to look up: the operation takes positive integers only, others are not looked up. */
function resolvableId(artist: JsonRecord): number | null {
  const id = toInteger(artist.id);
  return id !== null && id >= 1 ? id : null;
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
  page: PageFetch<PageNumberParams>,
): Promise<Answer[]> {
  const lookup = await page.send(getArtistByNameOperation, { name });
  const ids = getArtistByNameOperation
    .parse(lookup.body)
    .records.flatMap((a) => resolvableId(a) ?? []);
  // Settled, not raced: a failed look-up fails the page only once none is still in flight.
  const resolutions = await Promise.allSettled(
    ids.map((id) => api.send(artistIdFromIdentifiersOperation, { artist_id: id }, call)),
  );
  const failed = resolutions.find((r) => r.status === "rejected");
  if (failed) throw failed.reason;
  return [lookup, ...resolutions.map((r) => (r as PromiseFulfilledResult<Answer>).value)];
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
    const result = getArtistByNameOperation.parse(lookup.body);
    const resolved = new Map(
      resolutions.map((answer) => [
        Number(answer.params.artist_id),
        artistIdFromIdentifiersOperation.parse(answer.body).socialArtistId,
      ]),
    );
    const records = result.records.map((artist) => {
      const id = toInteger(artist.id);
      return { raw: artist, socialArtistId: id === null ? null : (resolved.get(id) ?? null) };
    });
    return { ...listRecords(result), records };
  },
  outputs: [
    {
      target: {
        table: "catalogue.artists",
        key: ["artist_id"],
      },
      mode: "upsert",
      rows: ({ raw: artist, socialArtistId }) => [
        {
          artist_id: toInteger(artist.id),
          name: toText(artist.name),
          organization_id: toInteger(artist.organization_id),
          proprietary_id: toText(artist.proprietary_id),
          social_artist_id: socialArtistId,
          raw: artist,
        },
      ],
    },
  ],
});
