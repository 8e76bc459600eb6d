/**
 * The cells of the table a command printed (`stream  partitions  …`, as `plan` and `sync` print
 * theirs), by column, of each row by its first.
 */
export function tableRows(output: string): Map<string, Record<string, string>> {
  const lines = output.split("\n");
  const start = lines.findIndex((line) => line.startsWith("stream "));
  const header = lines[start]?.split(/ {2,}/) ?? [];
  const rows = new Map<string, Record<string, string>>();
  for (const line of lines.slice(start + 1)) {
    const cells = line.split(/ {2,}/);
    if (!/^\w+$/.test(cells[0] ?? "") || !/^\d+$/.test(cells[1] ?? "")) break;
    rows.set(cells[0] ?? "", Object.fromEntries(header.map((name, i) => [name, cells[i] ?? ""])));
  }
  return rows;
}

/** The requests column of a printed table's total row, and the row's basis (a plan's). */
export function totalRow(output: string): { requests: number; basis: string } {
  const row = tableRows(output).get("total");
  return { requests: Number(row?.requests), basis: row?.basis ?? "" };
}
