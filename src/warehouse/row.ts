/** A warehouse table and its key, as a stream declares where its rows go. */
export interface TableKey {
  /** Schema-qualified name: "sales.trend_items". */
  readonly table: string;
  /** The primary key: rows with equal key values are the same row. */
  readonly key: readonly string[];
}

export type Row = Readonly<Record<string, unknown>>;
