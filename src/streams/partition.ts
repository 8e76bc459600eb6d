import type { PageSizes } from "./page-sizes.js";

/** One slice of a stream, synced and checkpointed as a unit. */
export interface Partition {
  /** Stable text key, stored in etl.stream_state and etl.attempts: "2026-01-05|asset|stream". */
  readonly key: string;
  /**
   * The day a daily partition covers. Such partitions are skipped once synced, except in the
   * lookback and when a range is given explicitly.
   */
  readonly day?: string;
}

/** Where a page starts: null for the first page, then what the stream's paging chose (JSON). */
export type Cursor = unknown;

/** What the load stage knows besides the responses themselves. */
export interface ReadContext {
  /** The run date (UTC) of the extraction: a snapshot's day, the day a payout was seen. */
  readonly today: string;
  /** Records read from the partition's earlier pages. */
  readonly position: number;
  /** Whether a link the upstream gave leads to the upstream itself (and may be followed). */
  readonly ownsLink: (link: string) => boolean;
  /** Page sizes learned per operation, for upstreams that serve less than asked. */
  readonly pageSizes: PageSizes;
}

/** Something a page leaves uncertain: reported per partition, never a quiet success. */
export interface PageWarning {
  /**
   * truncated: the body says the list holds more than was read (a total, a next link, a last
   * page not reached); no_list: no list could be found in the body; ambiguous: the body holds
   * several lists and one was read; untyped: values a typed column could not hold (kept in raw);
   * unmatched: records in which the reader found none of the fields it looks for (kept in raw).
   */
  readonly kind: "truncated" | "no_list" | "ambiguous" | "untyped" | "unmatched";
  readonly message: string;
}
