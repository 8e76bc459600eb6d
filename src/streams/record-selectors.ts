import type { RecordList, ObjectAnswer } from "../api/results.js";
import { splitItems } from "../api/results.js";
import { asRecord, type JsonRecord } from "../json/json-record.js";
import { listWarnings } from "./paging.js";
import type { PageRecords, RejectedItem } from "./stream.js";

/** Items that no record can be read from, for the quarantine. */
export function notRecords(items: readonly unknown[], what = "an object"): RejectedItem[] {
  return items.map((item) => ({ item, reason: `list item is not ${what}` }));
}

/**
 * The records of a list answer: its objects; its items that are none (quarantined); the list,
 * for the stream's paging; and what the list itself leaves uncertain (none found, several).
 */
export function listRecords({ records, others, list }: RecordList): PageRecords<JsonRecord> {
  return { records, list, rejected: notRecords(others), warnings: listWarnings(list) };
}

/**
 * The records of an answer that is one object, taking what comes: one object is one record; a
 * list of objects is one record per element (its position is its index); nothing (null, `{}`,
 * `[]`: PHP's empty map) is none. What is no object at all is quarantined.
 */
export function objectRecords({ data }: ObjectAnswer): PageRecords<JsonRecord> {
  if (data === null || data === undefined) return { records: [] };
  const record = asRecord(data);
  if (record) return { records: [record] };
  if (Array.isArray(data)) {
    const { records, others } = splitItems(data);
    return { records, rejected: notRecords(others) };
  }
  return {
    records: [],
    rejected: [{ item: data, reason: "not an object, where an object answer was expected" }],
  };
}
