import { ANSWER_KEYS } from "../http/failure-body.js";
import { asRecord, isEmpty, type JsonRecord } from "../json/json-record.js";

/**
 * Keys an envelope carries about the answer rather than data: its outcome, its message, and what
 * it says of the list's paging. They are never taken for the data.
 */
const METADATA_KEYS = new Set([
  ...ANSWER_KEYS,
  "error",
  "errors",
  "meta",
  "links",
  "pagination",
  "paging",
  "page",
  "page_size",
  "per_page",
  "pageSize",
  "perPage",
  "current_page",
  "currentPage",
  "last_page",
  "lastPage",
  "total",
  "total_count",
  "totalCount",
  "total_pages",
  "totalPages",
  "count",
  "length",
  "next",
  "next_page",
  "nextPage",
  "next_page_url",
  "prev_page_url",
  "first_page_url",
  "last_page_url",
  "from",
  "to",
  "path",
  "search",
  "timestamp",
  "request_id",
]);

/** What an envelope holds: its data, and the envelopes around it (where paging facts sit). */
export interface Opened {
  /** A list, an object, or null when the body holds nothing (`{}`, `[]`, `{obj: null}`). */
  readonly data: unknown;
  /** The objects from the body down to the data, outermost first; none for a bare body. */
  readonly envelopes: readonly JsonRecord[];
}

/** Whether an object says it is an answer about data, not data itself. */
function isEnvelope(record: JsonRecord): boolean {
  return (
    typeof record.status === "boolean" ||
    typeof record.success === "boolean" ||
    record.status === "ok" ||
    record.status === "success"
  );
}

/** The key whose value an envelope wraps, or null when the object is data itself. */
function dataKey(record: JsonRecord): string | null {
  if ("obj" in record) return "obj";
  const keys = Object.keys(record).filter((key) => !METADATA_KEYS.has(key));
  const [only] = keys;
  if (keys.length !== 1 || only === undefined) return null;
  const value = record[only];
  const holdsData = value === null || typeof value === "object";
  // `{data: ...}` wraps by its name alone; any other single key only in an envelope that says so
  // (`{status: true, invoice: {...}}`): a record may have one field beside its metadata.
  return holdsData && (only === "data" || isEnvelope(record)) ? only : null;
}

/**
 * The one envelope opener of every response: `{obj: ...}`, `{data: ...}`, `{status: true, <any one
 * data key>: ...}`, nested envelopes (`{data: {data: [...], total}}`), each told apart from its
 * metadata. What it finds is a list, an object, or nothing (null, `{}`, `[]`).
 */
export function openEnvelope(body: unknown): Opened {
  const envelopes: JsonRecord[] = [];
  let data = body;
  for (let depth = 0; depth < 4; depth += 1) {
    const record = asRecord(data);
    const key = record ? dataKey(record) : null;
    if (record === null || key === null) break;
    envelopes.push(record);
    data = record[key];
  }
  return { data: saysNothing(data) ? null : data, envelopes };
}

/** A body that holds no data: nothing, an empty map or list, or only what it says of itself. */
function saysNothing(data: unknown): boolean {
  if (data === undefined || data === null || isEmpty(data)) return true;
  const record = asRecord(data);
  return record !== null && Object.keys(record).every((key) => ANSWER_KEYS.includes(key));
}
