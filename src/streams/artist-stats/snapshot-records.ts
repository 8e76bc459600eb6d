import type { SnapshotOperation } from "../../api/operations/artist-stats.js";
import type { Row } from "../../warehouse/row.js";
import { NO_PAGING } from "../paging.js";
import { readSnapshot } from "../snapshot-read.js";
import { defineStream, ONE_REQUEST, type Stream } from "../stream.js";
import {
  AFTER_TRACKED_ARTISTS,
  type ArtistPartition,
  artistPartitions,
  artistScope,
} from "./tracked-artists.js";

/**
 * A stream of one artist's snapshot (what the upstream only shows as "now"), one request per
 * tracked artist, kept per run date in `table`: the artist, the snapshot's `columns` and `raw`,
 * one row per element of a snapshot that comes as a list.
 */
export function artistSnapshotStream(declared: {
  readonly name: string;
  readonly operation: SnapshotOperation;
  readonly table: string;
  readonly columns: (snapshot: unknown) => Row;
}): Stream {
  const { name, operation, table, columns } = declared;
  return defineStream<ArtistPartition, unknown>({
    name,
    family: "artist_stats",
    paging: NO_PAGING,
    after: AFTER_TRACKED_ARTISTS,
    partitions: artistPartitions,
    requests: ONE_REQUEST,
    fetch: async (_context, { artistId }, page) => [
      await page.exchange(operation, { artist_id: artistId }),
    ],
    read: readSnapshot,
    outputs: [
      {
        target: { table, key: ["artist_id", "snapshot_date", "element"] },
        mode: "snapshot",
        scope: artistScope,
        rows: (snapshot, partition, element) => [
          { ...artistScope(partition), element, ...columns(snapshot), raw: snapshot },
        ],
      },
    ],
  });
}
