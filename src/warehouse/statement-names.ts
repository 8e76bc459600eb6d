/**
 * Names for the statements a process sends again and again (a partition's closing statement, a
 * table's delete and insert of the same shape), so that pg prepares each once per connection and
 * then sends only its name and parameters. The worker's time goes largely to writing statements
 * to its sockets: a partition's few statements are kilobytes of text, sent for every partition,
 * and parsed and planned by Postgres each time (docs/benchmarks.md,
 * "Statements prepared by name").
 *
 * Only a statement seen `repeats` times and no longer than `maxLength` is named, and at most
 * `limit` are, for the process's life: a prepared statement holds memory in every connection's
 * server process, a statement of a rare shape (a write of as many rows as that page had) is not
 * worth it, and a long one (a write of hundreds of rows) carries its rows' data anyway.
 */
export class StatementNames {
  readonly #names = new Map<string, string>();
  readonly #seen = new Map<string, number>();
  #made = 0;

  constructor(
    private readonly options: {
      readonly repeats: number;
      readonly limit: number;
      readonly maxLength: number;
    } = { repeats: 3, limit: 200, maxLength: 16_384 },
  ) {}

  /** The name to prepare `text` under, once it has been seen often enough; undefined before. */
  nameOf(text: string): string | undefined {
    const named = this.#names.get(text);
    if (named !== undefined || this.#names.size >= this.options.limit) return named;
    if (text.length > this.options.maxLength) return undefined;
    const seen = (this.#seen.get(text) ?? 0) + 1;
    if (seen < this.options.repeats) {
      // Counted texts are forgotten together once many: a statement that repeats comes back.
      if (this.#seen.size >= 10 * this.options.limit) this.#seen.clear();
      this.#seen.set(text, seen);
      return undefined;
    }
    this.#seen.delete(text);
    this.#made += 1;
    const name = `etl_${this.#made}`;
    this.#names.set(text, name);
    return name;
  }

  /**
   * Forgets the name of `text`: its result's columns changed under it (a column added to a table
   * it reads all of), which Postgres refuses for a prepared statement, so it is prepared again
   * under a new name when it is named next.
   */
  forget(text: string): void {
    this.#names.delete(text);
  }

  /** How many statements are named. */
  get size(): number {
    return this.#names.size;
  }
}
