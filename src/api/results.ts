import { asRecord, type JsonRecord } from "../json/json-record.js";
import { type ListPage, readListPage, unwrapObject } from "./list-page.js";

/** A response whose records the spec does not show: the objects found, and the body as it came. */
export interface RecordList {
  readonly records: readonly JsonRecord[];
  /** Items of the list that are not objects: no record can be read from them. */
  readonly others: readonly unknown[];
  /** The list and what the body says of the rest of it. */
  readonly list: ListPage;
  readonly raw: unknown;
}

/** A response that is one object the spec does not show (`{obj: ...}` or `{data: ...}` opened). */
export interface ObjectAnswer {
  readonly data: unknown;
  readonly raw: unknown;
}

/** The items of a list split into object records and the others. */
export function splitItems(items: readonly unknown[]): {
  records: JsonRecord[];
  others: unknown[];
} {
  const records: JsonRecord[] = [];
  const others: unknown[] = [];
  for (const item of items) {
    const record = asRecord(item);
    if (record) records.push(record);
    else others.push(item);
  }
  return { records, others };
}

export function toRecordList(body: unknown): RecordList {
  const list = readListPage(body);
  return { ...splitItems(list.items), list, raw: body };
}

export function toObjectAnswer(body: unknown): ObjectAnswer {
  return { data: unwrapObject(body), raw: body };
}
