import type { EtlConfig } from "../../config/etl-config-schema.js";
import type { Warehouse } from "../../warehouse/database.js";
import {
  type CatalogueArtistLink,
  catalogueArtistLinks,
  resolvedStreamingIds,
} from "../../warehouse/artist-links.js";
import { artists } from "./artists.js";

/**
 * The artists a run would track, found as the artists stream finds them but without a request:
 * a first backfill is planned before anything has written artist_stats.artists.
 */
export interface ArtistProjection {
  /** Ascending; a stand-in (below zero) for each unresolved streaming id. */
  readonly ids: readonly number[];
  readonly configured: number;
  /** Social ids the catalogue links to that the config does not list. */
  readonly linked: number;
  /** Social ids earlier runs resolved configured streaming ids to, found no other way. */
  readonly resolved: number;
  /**
   * Configured streaming ids no earlier run resolved: each counted as an artist of its own, the
   * most it can add (it may resolve to an artist found another way, or to none).
   */
  readonly unresolved: number;
  /** Streams the projection reads that neither synced nor were asked: they may add artists. */
  readonly sources: readonly string[];
}

/**
 * `known`: the streams whose rows are as the run will find them (those synced, and the catalogue's
 * artists once asked of the upstream); `links`: the catalogue's links as the run will read them,
 * where they are known before the warehouse holds them (default: as stored).
 */
export async function projectTrackedArtists(
  db: Warehouse,
  config: EtlConfig,
  known: ReadonlySet<string>,
  links?: readonly CatalogueArtistLink[],
): Promise<ArtistProjection> {
  const configured = new Set(config.social_artist_ids);
  const found = new Set(configured);
  for (const link of links ?? (await catalogueArtistLinks(db))) found.add(link.socialArtistId);
  const linked = found.size - configured.size;
  const resolved = await resolvedStreamingIds(db);
  let unresolved = 0;
  for (const id of config.streaming_artist_ids) {
    const artistId = resolved.get(id);
    if (artistId === undefined) unresolved += 1;
    else found.add(artistId);
  }
  const resolvedOnly = found.size - configured.size - linked;
  const standIns = Array.from({ length: unresolved }, (_, i) => -1 - i);
  return {
    ids: [...standIns, ...found].sort((a, b) => a - b),
    configured: configured.size,
    linked,
    resolved: resolvedOnly,
    unresolved,
    sources: (artists.after ?? []).filter((source) => !known.has(source)),
  };
}
