import { asRecord, isEmpty } from "../json/json-record.js";

/** Keys of an answer about itself: a body with nothing else holds no data (`{status: true}`). */
export const ANSWER_KEYS = ["status", "success", "ok", "message", "msg", "code"];

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
  return (
    value !== null && value !== undefined && value !== false && value !== "" && !isEmpty(value)
  );
}

/**
 * Whether a body declares that the request failed. `status: false` is the spec's own failure
 * envelope, whatever sits beside it; `success: false`, an `error` or `errors`, or a status such
 * as "error" declare failure only with no data beside them (a record may well have a field named
 * `status` or `error`).
 */
export function declaresFailure(body: unknown): boolean {
  const record = asRecord(body);
  if (record === null) return false;
  if (record.status === false || record.status === "false") return true;
  if (Object.keys(record).some((key) => !FAILURE_KEYS.has(key))) return false;
  const status = typeof record.status === "string" ? record.status.toLowerCase() : null;
  return (
    record.success === false ||
    record.ok === false ||
    present(record.error) ||
    present(record.errors) ||
    (status !== null && FAILED_STATUS.has(status))
  );
}
