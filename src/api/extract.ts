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
