import type { Exchange } from "../../api/api-client.js";
import type { SnapshotOperation } from "../../api/operations/artist-stats.js";
import { asRecord } from "../../api/read-values.js";
import { toSnapshot } from "../../api/results.js";
import type { Row } from "../../warehouse/write-rows.js";
import { single } from "../list-read.js";
import { NO_PAGING } from "../paging.js";
import { defineStream, ONE_REQUEST, type PageRead, type Stream } from "../stream.js";
import {
  AFTER_TRACKED_ARTISTS,
  type ArtistPartition,
  artistPartitions,
  artistScope,
} from "./tracked-artists.js";

/**
 * A snapshot answer as records: its object (opened from `{obj: ...}` or `{data: ...}`), none when
 * the upstream sent nothing, and anything else quarantined.
 */
export function readSnapshot(exchanges: readonly Exchange[]): PageRead<unknown> {
  const { data } = toSnapshot(single(exchanges).body);
  if (data === null || data === undefined) return { records: [] };
  if (asRecord(data)) return { records: [data] };
  return { records: [], rejected: [{ item: data, reason: "the snapshot is not an object" }] };
}

/**
 * A stream of one artist's snapshot (what the upstream only shows as "now"), one request per
 * tracked artist, kept per run date in `table`: the artist, the snapshot's `columns` and `raw`.
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
        target: { table, key: ["artist_id", "snapshot_date"] },
        mode: "snapshot",
        scope: artistScope,
        rows: (snapshot, partition) => [
          { ...artistScope(partition), ...columns(snapshot), raw: snapshot },
        ],
      },
    ],
  });
}
