// Money is held in integer minor units so sums and balances never drift by floating-point error:
// cents by default, ten-thousandths under shapes.moneyDecimals 4.
import { hash32 } from "../prng.js";
import type { Money } from "./records.js";

export type MoneyDecimals = 2 | 4;

/** "1234.56" */
export function formatCents(cents: number): string {
  return formatMinor(cents, 2);
}

/** Minor units as a decimal with exactly `decimals` places: (123456, 4) -> "12.3456". */
export function formatMinor(units: number, decimals: MoneyDecimals): string {
  const scale = 10 ** decimals;
  const sign = units < 0 ? "-" : "";
  const abs = Math.abs(units);
  return `${sign}${Math.floor(abs / scale)}.${String(abs % scale).padStart(decimals, "0")}`;
}

/** Cents of a decimal with at most two places ("12.5", "12.50", 12.5), or null. */
export function parseCents(value: unknown): number | null {
  const text = typeof value === "number" && Number.isFinite(value) ? String(value) : value;
  if (typeof text !== "string") return null;
  const match = /^(\d+)(?:\.(\d{1,2}))?$/.exec(text.trim());
  if (!match?.[1]) return null;
  return Number(match[1]) * 100 + Number((match[2] ?? "").padEnd(2, "0"));
}

/**
 * Cents in the minor units of `decimals`. At 4 the two extra digits come from a hash of `key`:
 * a quarter end in "00" (so "12.3400" is served), a quarter in "0", the rest in a non-zero digit
 * (so a JSON number needs all four places, 1234.5678).
 */
export function centsToMinor(
  cents: number,
  decimals: MoneyDecimals,
  ...key: ReadonlyArray<string | number>
): number {
  if (decimals === 2) return cents;
  const h = hash32("money-digits", ...key);
  const kind = h % 4;
  const tens = (h >>> 2) % 10;
  const extra = kind === 0 ? 0 : kind === 1 ? tens * 10 : tens * 10 + 1 + ((h >>> 6) % 9);
  return cents * 100 + extra;
}

/**
 * An amount as served: at 2 decimals in its usual form (text, "12.30", or a JSON number for
 * `plain: "number"`, as the wallet is); at 4 about half as text with all four places ("12.3400")
 * and half as the JSON number of the same value (12.34, 1234.5678), by a hash of `key`.
 */
export function moneyValue(
  units: number,
  decimals: MoneyDecimals,
  key: ReadonlyArray<string | number>,
  plain: "text" | "number" = "text",
): Money {
  const text = formatMinor(units, decimals);
  const asNumber = decimals === 2 ? plain === "number" : hash32("money-encoding", ...key) % 2 === 1;
  return asNumber ? Number(text) : text;
}

/** Fees of an amount in minor units: 1.5% of it, at least 1.00. */
export function feesOf(units: number, decimals: MoneyDecimals): number {
  return Math.max(10 ** decimals, Math.round(units * 0.015));
}
