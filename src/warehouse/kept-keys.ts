import type { Row } from "./row.js";

/** What needs escaping inside a quoted element of a Postgres array literal. */
const ARRAY_SPECIAL = /["\\]/;
const ARRAY_SPECIALS = /["\\]/g;

/**
 * The keys of the rows a partition wrote, as text, a list per key column: what its closing delete
 * keeps. No object per row: a large answer's keys are held until the partition closes.
 */
export class KeptKeys {
  readonly #columns: Map<string, string[]>;
  #size = 0;

  constructor(key: readonly string[]) {
    this.#columns = new Map(key.map((column) => [column, []]));
  }

  get size(): number {
    return this.#size;
  }

  add(row: Row): void {
    for (const [column, values] of this.#columns) values.push(String(row[column]));
    this.#size += 1;
  }

  /**
   * A key column's values as one Postgres `text[]` literal, built with a single join. Handed an
   * array, node-postgres builds the literal a concatenation per element: a rope of about 100
   * bytes a key, which on a large answer was the partition's peak of memory.
   */
  textArray(column: string): string {
    const values = this.#columns.get(column);
    if (values === undefined) throw new Error(`${column} is not a key column`);
    if (values.length === 0) return "{}";
    const quoted = values.map((value) =>
      ARRAY_SPECIAL.test(value) ? value.replace(ARRAY_SPECIALS, "\\$&") : value,
    );
    return `{"${quoted.join('","')}"}`;
  }
}
