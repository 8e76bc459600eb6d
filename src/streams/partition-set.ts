import type { Row } from "../warehouse/row.js";
import type { Partition } from "./partition.js";
import type { Partitions, PlanContext } from "./stream.js";

/**
 * What a stream's partitions range over, declared once for every stream that shares them (the
 * tracked artists, their days, the sale days, the configured look-ups, a whole list): how a run
 * plans them, what they wait for, and which rows each one owns.
 */
export interface PartitionSet<P extends Partition> {
  readonly plan: (context: PlanContext) => Partitions<P> | Promise<Partitions<P>>;
  /**
   * Streams whose rows the partitions are planned from: a run plans them once these have
   * finished (the tracked artists' streams wait for the one that writes them).
   */
  readonly after?: readonly string[];
  /**
   * The columns and values of a partition's rows: written into every row, and what a replace or
   * a snapshot deletes within (`{}`: the whole table).
   */
  readonly scope: (partition: P) => Row;
  /** One partition per day of the run's range: a run plans them a day at a time, newest first. */
  readonly daily?: boolean;
  /**
   * The partitions share their table and none owns rows (the look-ups each add to one table): only
   * an upsert may write them, since a replace would have each delete the others' rows.
   */
  readonly sharesTable?: true;
}

/** Every row of the table is the one partition's (a list synced whole on every run). */
export const WHOLE_TABLE = (): Row => ({});
