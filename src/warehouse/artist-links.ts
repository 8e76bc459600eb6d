import { sql } from "kysely";
import type { Warehouse } from "./database.js";

/** The social ids in artist_stats.artists, ascending: the artists the per-artist streams fetch. */
export async function trackedArtistIds(db: Warehouse): Promise<number[]> {
  const { rows } = await sql<{ artist_id: string }>`
    select artist_id::text from artist_stats.artists order by artist_id`.execute(db);
  return rows.map((row) => Number(row.artist_id));
}

export interface CatalogueArtistLink {
  readonly catalogueArtistId: string;
  readonly socialArtistId: number;
  /** The catalogue artist's name; absent from partitions stored before names were tracked. */
  readonly name?: string | null;
}

/** Catalogue artists linked to a social artist, by catalogue id (the order ids are stored in). */
export async function catalogueArtistLinks(db: Warehouse): Promise<CatalogueArtistLink[]> {
  const { rows } = await sql<{ artist_id: string; social_artist_id: string; name: string | null }>`
    select artist_id::text, social_artist_id::text, name from catalogue.artists
    where social_artist_id is not null order by artist_id`.execute(db);
  return rows.map((row) => ({
    catalogueArtistId: row.artist_id,
    socialArtistId: Number(row.social_artist_id),
    name: row.name,
  }));
}

/** The social id each streaming id in artist_stats.artists resolved to, by streaming id. */
export async function resolvedStreamingIds(db: Warehouse): Promise<Map<string, number>> {
  const { rows } = await sql<{ streaming_id: string; artist_id: string }>`
    select unnest(streaming_artist_ids) as streaming_id, artist_id::text
    from artist_stats.artists`.execute(db);
  return new Map(rows.map((row) => [row.streaming_id, Number(row.artist_id)]));
}
