import { untyped } from "./untyped-values.js";

/**
 * Tolerant readers for payloads the spec does not pin down. They never throw: a value that is not
 * what was hoped for becomes null (and is noted as untyped for the run's report), and the caller keeps
 * the raw JSON beside what it could type.
 */

export type JsonRecord = Record<string, unknown>;

export function asRecord(value: unknown): JsonRecord | null {
  return value !== null && typeof value === "object" && !Array.isArray(value)
    ? (value as JsonRecord)
    : null;
}

function parseNumber(value: unknown): number | null {
  if (typeof value === "number") return Number.isFinite(value) ? value : null;
  if (typeof value === "string" && value.trim() !== "") {
    const parsed = Number(value.trim());
    return Number.isFinite(parsed) ? parsed : null;
  }
  return null;
}

/** A non-empty string or a number's decimal text, else null; notes nothing. */
export function parseText(value: unknown): string | null {
  if (typeof value === "string") return value === "" ? null : value;
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  return null;
}

/** A number, also from a numeric string ("12.50", " 3 "); anything else is null. */
export function toNumber(value: unknown): number | null {
  return parseNumber(value) ?? untyped("number", value);
}

/** A whole number, also from a string; a fraction or anything else is null. */
export function toInteger(value: unknown): number | null {
  const parsed = parseNumber(value);
  return parsed !== null && Number.isInteger(parsed) ? parsed : untyped("integer", value);
}

/** A non-empty string; numbers become their decimal text (ids arrive as either). */
export function toText(value: unknown): string | null {
  return parseText(value) ?? (typeof value === "string" ? null : untyped("text", value));
}

/** The artist-statistics envelope `{obj: ...}` opened; anything else is returned as it is. */
export function unwrapObj(body: unknown): unknown {
  const record = asRecord(body);
  return record && "obj" in record ? record.obj : body;
}

/** Keys under which wrapped lists are most commonly found, in order of preference. */
const LIST_KEYS = ["obj", "data", "items", "results", "rows", "list", "records"];

/**
 * The records of a list response, wherever they are: a bare array, an array under a well-known
 * key (`{obj: [...]}`, `{status: true, data: [...]}`, `{obj: {length, data: [...]}}`), or else
 * the first array of objects under any key. Null when the body holds no list at all.
 */
export function findList(body: unknown, depth = 0): unknown[] | null {
  if (Array.isArray(body)) return body as unknown[];
  const record = asRecord(body);
  if (!record || depth > 3) return null;
  for (const key of LIST_KEYS) {
    if (key in record) {
      const found = findList(record[key], depth + 1);
      if (found) return found;
    }
  }
  const arrays = Object.values(record).filter(Array.isArray);
  return arrays.find((array) => array.some((item) => asRecord(item) !== null)) ?? arrays[0] ?? null;
}

/** `findList` for callers that treat "no list" as "no records". */
export function listOf(body: unknown): unknown[] {
  return findList(body) ?? [];
}

/** The object records of a list response; items that are not objects stay only in the raw body. */
export function recordsOf(body: unknown): JsonRecord[] {
  return listOf(body).flatMap((item) => {
    const record = asRecord(item);
    return record ? [record] : [];
  });
}

/** A money amount as exact decimal text with two places ("12.5" -> "12.50"); null if not money. */
export function toMoney(value: unknown): string | null {
  const text =
    typeof value === "number"
      ? Number.isFinite(value)
        ? value.toFixed(2)
        : ""
      : parseText(value)?.trim();
  const match = text ? /^(-?)(\d+)(?:\.(\d{1,2}))?$/.exec(text) : null;
  if (!match) return untyped("money", value);
  const [, sign, units, cents = ""] = match;
  return `${sign}${BigInt(units as string).toString()}.${cents.padEnd(2, "0")}`;
}
