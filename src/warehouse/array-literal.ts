/**
 * A Postgres array literal ({"a","b"}) for an array column: the row writer sends JS arrays as
 * JSON (for jsonb), which an array column refuses.
 */
export function toArrayLiteral(values: readonly (string | number)[]): string {
  const quoted = values.map((value) => `"${String(value).replace(/["\\]/g, "\\$&")}"`);
  return `{${quoted.join(",")}}`;
}
