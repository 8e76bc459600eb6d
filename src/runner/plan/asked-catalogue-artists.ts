import { type CatalogueArtistLink, catalogueArtistLinks } from "../../warehouse/artist-links.js";
import type { Row } from "../../warehouse/row.js";
import type { RunnerDeps } from "../attempt-record.js";
import { type DayRange, planPartitions } from "./plan-partitions.js";
import { type ReadPartitionDeps, readPartition } from "../extract/read-partition.js";
import type { Stream } from "../../streams/stream.js";

/** The table whose links the tracked artists are found from (warehouse/artist-links.ts). */
const CATALOGUE_ARTISTS = "catalogue.artists";

/** What the catalogue's artists stream finds, asked of the upstream before a run makes it. */
export interface AskedCatalogueArtists {
  /** The catalogue artists its searches found, each once. */
  readonly found: number;
  /** Those of them the statistics API knows: linked to a social id. */
  readonly known: number;
  /**
   * The links catalogue.artists will hold once the run has stored what it finds (its upserts
   * keep every artist stored and take what was found of each), by catalogue id.
   */
  readonly links: readonly CatalogueArtistLink[];
  /** Its searches' and look-ups' requests, every page: the run's artists stream sends them again. */
  readonly requests: number;
}

/** A catalogue.artists row as a link, its social id null where the statistics API knows none. */
type FoundArtist = Omit<CatalogueArtistLink, "socialArtistId"> & {
  readonly socialArtistId: number | null;
};

/**
 * Asks the upstream what `stream` (the catalogue's artists) finds over `range`, reading its
 * partitions as a sync does but writing nothing: a first run's plan learns which artists the
 * per-artist streams will track, where the warehouse holds none yet. Its rows are made by the
 * stream's own output, so the links are exactly those the run would store.
 */
export async function askCatalogueArtists(
  deps: Pick<RunnerDeps, "db"> & ReadPartitionDeps,
  stream: Stream,
  range: DayRange,
): Promise<AskedCatalogueArtists> {
  const output = stream.outputs.find((o) => o.target.table === CATALOGUE_ARTISTS);
  if (!output) throw new Error(`${stream.name} writes no ${CATALOGUE_ARTISTS}`);
  const found = new Map<string, FoundArtist>();
  let requests = 0;
  for await (const slice of planPartitions(deps, stream, range)) {
    const reads = await Promise.all(slice.map((p) => readPartition(deps, stream, p)));
    for (const [i, partition] of slice.entries()) {
      const read = reads[i];
      if (!read) continue;
      requests += read.requests;
      for (const [position, record] of read.records.entries()) {
        for (const row of output.rows(record, partition, position, deps.today)) {
          const artist = foundArtist(row);
          if (artist) found.set(artist.catalogueArtistId, artist);
        }
      }
    }
  }
  const links = new Map(
    (await catalogueArtistLinks(deps.db)).map((link) => [link.catalogueArtistId, link]),
  );
  let known = 0;
  for (const [id, artist] of found) {
    const { socialArtistId } = artist;
    if (socialArtistId === null) {
      links.delete(id);
      continue;
    }
    known += 1;
    links.set(id, { ...artist, socialArtistId });
  }
  const byId = [...links.values()].sort(
    (a, b) => Number(a.catalogueArtistId) - Number(b.catalogueArtistId),
  );
  return { found: found.size, known, links: byId, requests };
}

/** A catalogue.artists row as found; a row without an id is none (the load quarantines it). */
function foundArtist(row: Row): FoundArtist | null {
  const id = row.artist_id;
  if (typeof id !== "number") return null;
  const social = row.social_artist_id;
  return {
    catalogueArtistId: String(id),
    socialArtistId: typeof social === "number" ? social : null,
    name: typeof row.name === "string" ? row.name : null,
  };
}
