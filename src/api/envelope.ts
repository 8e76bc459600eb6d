import { upstreamMessage } from "../http/upstream-message.js";
import { asRecord, type JsonRecord } from "./read-values.js";

/** Keys of an answer about itself: a body with nothing else holds no data (`{status: true}`). */
const ANSWER_KEYS = ["status", "success", "ok", "message", "msg", "code"];

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

/** Keys a failure envelope carries besides its verdict: anything else beside it is data. */
const FAILURE_KEYS = new Set([
  ...ANSWER_KEYS,
  "type",
  "error",
  "errors",
  "error_code",
  "error_message",
  "detail",
  "details",
  "title",
  "timestamp",
  "path",
  "request_id",
]);

const FAILED_STATUS = new Set(["error", "fail", "failed", "failure"]);

/** Whether a value says something: not absent, null, false, "" or an empty list or map. */
function present(value: unknown): boolean {
  if (value === null || value === undefined || value === false || value === "") return false;
  if (Array.isArray(value)) return value.length > 0;
  const record = asRecord(value);
  return record === null || Object.keys(record).length > 0;
}

/**
 * The upstream's message when a body declares that the request failed, else null. `status: false`
 * is the spec's own failure envelope, whatever sits beside it; `success: false`, an `error` or
 * `errors`, or a status such as "error" declare failure only with no data beside them (a record
 * may well have a field named `status` or `error`).
 */
export function declaredFailure(body: unknown, text: string): string | null {
  const record = asRecord(body);
  if (record === null) return null;
  if (record.status === false || record.status === "false") return upstreamMessage(body, text);
  if (Object.keys(record).some((key) => !FAILURE_KEYS.has(key))) return null;
  const status = typeof record.status === "string" ? record.status.toLowerCase() : null;
  const failed =
    record.success === false ||
    record.ok === false ||
    present(record.error) ||
    present(record.errors) ||
    (status !== null && FAILED_STATUS.has(status));
  return failed ? upstreamMessage(body, text) : null;
}

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

/** An empty map or list: PHP encodes an empty map as `[]`. */
function isEmpty(value: unknown): boolean {
  if (Array.isArray(value)) return value.length === 0;
  const record = asRecord(value);
  return record !== null && Object.keys(record).length === 0;
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

function saysNothing(data: unknown): boolean {
  if (data === undefined || data === null || isEmpty(data)) return true;
  const record = asRecord(data);
  return record !== null && Object.keys(record).every((key) => ANSWER_KEYS.includes(key));
}
