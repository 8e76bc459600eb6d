import { JsonDecimal } from "./json-body.js";

/** A JSON object as parsed: its keys and values, none of them typed yet. */
export type JsonRecord = Record<string, unknown>;

export function asRecord(value: unknown): JsonRecord | null {
  return value !== null &&
    typeof value === "object" &&
    !Array.isArray(value) &&
    !(value instanceof JsonDecimal)
    ? (value as JsonRecord)
    : null;
}

/** An empty map or list: PHP encodes an empty map as `[]`. */
export function isEmpty(value: unknown): boolean {
  if (Array.isArray(value)) return value.length === 0;
  const record = asRecord(value);
  return record !== null && Object.keys(record).length === 0;
}
