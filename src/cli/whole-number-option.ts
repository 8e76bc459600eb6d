import { UsageError } from "../errors.js";

/** A whole-number option from `min` to `max`, checked before anything runs; undefined if absent. */
export function wholeNumberOption(
  flag: string,
  text: string | undefined,
  min: number,
  max: number,
): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!/^-?\d+$/.test(text) || value < min || value > max) {
    throw new UsageError(`${flag} takes a whole number from ${min} to ${max} (got "${text}")`);
  }
  return value;
}
