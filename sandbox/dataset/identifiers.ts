import type { Rng } from "../prng.js";

const BASE62 = [..."0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"];
const ALNUM = [..."0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"];

function digits(rng: Rng, length: number): string {
  let text = "";
  for (let i = 0; i < length; i++) text += rng.int(0, 9);
  return text;
}

function gtinCheckDigit(body: string): number {
  // GTIN rule: weights 3,1,3,1… from the rightmost digit of the body.
  let sum = 0;
  for (let i = 0; i < body.length; i++) {
    sum += Number(body[body.length - 1 - i]) * (i % 2 === 0 ? 3 : 1);
  }
  return (10 - (sum % 10)) % 10;
}

/**
 * A 12-digit UPC-A or 13-digit EAN-13 with a valid check digit. The index is embedded in the
 * last digits before the check digit, so codes are unique without a lookup table.
 */
export function upcCode(rng: Rng, index: number): string {
  const body = rng.chance(0.5)
    ? `0${digits(rng, 5)}${String(index).padStart(5, "0")}`
    : `${rng.int(3, 9)}${digits(rng, 6)}${String(index).padStart(5, "0")}`;
  return `${body}${gtinCheckDigit(body)}`;
}

/** CC XXX YY NNNNN without dashes; the index picks year and designation, so it is unique. */
export function isrcCode(country: string, registrant: string, index: number): string {
  const year = 10 + Math.floor(index / 100_000);
  return `${country}${registrant}${year}${String(index % 100_000).padStart(5, "0")}`;
}

/** A three-character ISRC registrant code. */
export function registrantCode(rng: Rng): string {
  return Array.from({ length: 3 }, () => rng.pick(ALNUM)).join("");
}

export function base62Id(rng: Rng, length: number): string {
  return Array.from({ length }, () => rng.pick(BASE62)).join("");
}

/** A version-4 shaped UUID drawn from the generator (deterministic, unlike randomUUID). */
export function uuidFrom(rng: Rng): string {
  const hex = Array.from({ length: 32 }, () => rng.int(0, 15).toString(16));
  hex[12] = "4";
  hex[16] = ((rng.int(0, 15) & 0x3) | 0x8).toString(16);
  const text = hex.join("");
  return `${text.slice(0, 8)}-${text.slice(8, 12)}-${text.slice(12, 16)}-${text.slice(16, 20)}-${text.slice(20)}`;
}
