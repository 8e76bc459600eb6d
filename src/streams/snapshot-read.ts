import type { Exchange } from "../api/api-client.js";
import { asRecord, type JsonRecord } from "../json/json-record.js";
import { splitItems, toSnapshot } from "../api/results.js";
import { notRecords, single } from "./list-read.js";
import type { PageRead } from "./stream.js";

/**
 * A snapshot answer as records, taking what comes: one object is one record; a list of objects is
 * one record per element (its `position` is its index: the `element` of its row); nothing (null,
 * `{}`, `[]`: PHP's empty map) is none. What is no object at all is quarantined.
 */
export function readSnapshot(exchanges: readonly Exchange[]): PageRead<JsonRecord> {
  const { data } = toSnapshot(single(exchanges).body);
  if (data === null || data === undefined) return { records: [] };
  const record = asRecord(data);
  if (record) return { records: [record] };
  if (Array.isArray(data)) {
    const { records, others } = splitItems(data);
    return { records, rejected: notRecords(others) };
  }
  return { records: [], rejected: [{ item: data, reason: "the snapshot is not an object" }] };
}
