/** Edits (insert, delete, replace, swap two neighbours) that turn `a` into `b`. */
function editDistance(a: string, b: string): number {
  const rows: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i += 1) {
    for (let j = 1; j <= b.length; j += 1) {
      const row = rows[i] as number[];
      const above = rows[i - 1] as number[];
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min((above[j] as number) + 1, (row[j - 1] as number) + 1);
      best = Math.min(best, (above[j - 1] as number) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        best = Math.min(best, ((rows[i - 2] as number[])[j - 2] as number) + 1);
      }
      row[j] = best;
    }
  }
  return (rows[a.length] as number[])[b.length] as number;
}

/**
 * ` (did you mean "x"?)` for the known names nearest a mistyped one, or "" when none is near: at
 * most a third of the longer name edited, as a command's typo is suggested by commander.
 */
export function didYouMean(name: string, known: Iterable<string>): string {
  let best = Number.POSITIVE_INFINITY;
  let nearest: string[] = [];
  for (const candidate of new Set(known)) {
    const distance = editDistance(name.toLowerCase(), candidate.toLowerCase());
    if (distance > Math.max(1, Math.floor(Math.max(name.length, candidate.length) / 3))) continue;
    if (distance < best) [best, nearest] = [distance, [candidate]];
    else if (distance === best) nearest.push(candidate);
  }
  if (nearest.length === 0) return "";
  return ` (did you mean ${nearest
    .sort()
    .map((n) => `"${n}"`)
    .join(" or ")}?)`;
}
