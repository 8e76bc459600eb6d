import type { Exchange } from "../../api/api-client.js";
import { asRecord } from "../../api/read-values.js";
import { toSnapshot } from "../../api/results.js";
import { single } from "../list-read.js";
import type { PageRead } from "../stream.js";

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
