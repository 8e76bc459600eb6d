import type { JsonRecord } from "./extract.js";
import { recordsOf, unwrapObj } from "./extract.js";

/** A response whose records the spec does not show: the objects found, and the body as it came. */
export interface RecordList {
  readonly records: readonly JsonRecord[];
  readonly raw: unknown;
}

/** A response that is one object the spec does not show (`{obj: ...}` opened when present). */
export interface Snapshot {
  readonly data: unknown;
  readonly raw: unknown;
}

export function toRecordList(body: unknown): RecordList {
  return { records: recordsOf(body), raw: body };
}

export function toSnapshot(body: unknown): Snapshot {
  return { data: unwrapObj(body), raw: body };
}
