/** The units a count is shortened to, the largest first. */
const UNITS = [
  { size: 1_000_000_000, suffix: "G" },
  { size: 1_000_000, suffix: "M" },
  { size: 1000, suffix: "k" },
] as const;

/**
 * A count in at most four characters, never more than it is ("1.9k" for 1,999): fourteen days of
 * a stream's attempts share a screen's width. Where it is shown, its title holds the exact count.
 */
export function shortCount(count: number): string {
  const unit = UNITS.find((u) => count >= u.size);
  if (unit === undefined) return String(count);
  const tenths = Math.floor(count / (unit.size / 10));
  return tenths < 100 ? `${tenths / 10}${unit.suffix}` : `${Math.floor(tenths / 10)}${unit.suffix}`;
}
