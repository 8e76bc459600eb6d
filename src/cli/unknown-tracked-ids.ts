import type { ApiClient } from "../api/api-client.js";
import type { EtlConfig } from "../config/etl-config-schema.js";
import { errorMessage } from "../errors.js";
import { RateLimitedError, UpstreamStatusError } from "../http/upstream-errors.js";
import { artistIdOperation } from "../streams/artist-stats/artist-id-lookup.js";
import { cmStatsOperation } from "../streams/artist-stats/cm-stats.js";
import { getProductByUpcOperation } from "../streams/catalogue/products.js";

/** What one look-up of a configured id found. */
type Found = "known" | "unknown";

interface Lookup {
  /** How the id is named in a message: "UPC 0000", "social artist id 99". */
  readonly label: string;
  readonly find: () => Promise<Found>;
}

/** A 404 from an endpoint keyed by the id: the upstream does not know it. */
async function knownUnless404(call: () => Promise<unknown>): Promise<Found> {
  try {
    await call();
    return "known";
  } catch (error) {
    if (error instanceof UpstreamStatusError && error.status === 404) return "unknown";
    throw error;
  }
}

function lookupsOf(api: ApiClient, etl: EtlConfig): Lookup[] {
  return [
    ...etl.upcs.map((upc) => ({
      label: `UPC ${upc}`,
      find: async (): Promise<Found> => {
        const { records } = await api.call(getProductByUpcOperation, { upc, page_size: 1 });
        return records.length > 0 ? "known" : "unknown";
      },
    })),
    ...etl.social_artist_ids.map((id) => ({
      label: `social artist id ${id}`,
      find: () => knownUnless404(() => api.call(cmStatsOperation, { artist_id: id })),
    })),
    ...etl.streaming_artist_ids.map((id) => ({
      label: `streaming artist id ${id}`,
      find: async (): Promise<Found> =>
        (await api.call(artistIdOperation, { id })).socialArtistId === null ? "unknown" : "known",
    })),
  ];
}

/** Look-ups the upstream refused with a 429 again after the wait it asked for. */
export interface RateLimitedLookups {
  readonly count: number;
  /** The last such answer: what the upstream said of its limit. */
  readonly answer: RateLimitedError;
}

/**
 * Each look-up counted once, by what it found: known (the rest), unknown, or neither because it
 * failed (refused by the rate limit, or for another reason). A failed look-up says nothing of
 * whether the upstream knows the id.
 */
export interface TrackedIdsReport {
  readonly looked: number;
  readonly unknown: readonly string[];
  readonly rateLimited: RateLimitedLookups | null;
  /** Look-ups that failed for another reason, with it. */
  readonly failed: readonly string[];
}

/**
 * Looks up each configured UPC and artist id once (the request budget paces them, and a 429 is
 * waited out as the HTTP client is told) and says which the upstream does not know: each would
 * fail, or find nothing, on every run.
 */
export async function unknownTrackedIds(api: ApiClient, etl: EtlConfig): Promise<TrackedIdsReport> {
  const lookups = lookupsOf(api, etl);
  const outcomes = await Promise.allSettled(lookups.map((lookup) => lookup.find()));
  const unknown: string[] = [];
  let limited = 0;
  let answer: RateLimitedError | null = null;
  const failed: string[] = [];
  for (const [i, outcome] of outcomes.entries()) {
    const label = lookups[i]?.label ?? "?";
    if (outcome.status === "fulfilled") {
      if (outcome.value === "unknown") unknown.push(label);
    } else if (outcome.reason instanceof RateLimitedError) {
      limited += 1;
      answer = outcome.reason;
    } else failed.push(`${label}: ${errorMessage(outcome.reason)}`);
  }
  const rateLimited = answer === null ? null : { count: limited, answer };
  return { looked: lookups.length, unknown, rateLimited, failed };
}
