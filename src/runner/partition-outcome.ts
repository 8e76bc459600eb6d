import type { UntypedField } from "../api/untyped-values.js";
import type { SchemaChange } from "../columns/discovered-columns.js";
import type { PageWarning } from "../streams/partition.js";
import type { PhaseTimings } from "./phase-timer.js";

/**
 * succeeded; failed: the partition could not be synced; interrupted: the run was stopped (a
 * shutdown, a refused credential) before the partition ended: not a failure of the partition,
 * which is handed back as it was.
 */
export type PartitionStatus = "succeeded" | "failed" | "interrupted";

export interface PartitionOutcome {
  readonly stream: string;
  readonly partition: string;
  readonly status: PartitionStatus;
  readonly requests: number;
  readonly rowsWritten: number;
  /** Records that yielded no storable row: quarantined in etl.rejected_records. */
  readonly rowsRejected: number;
  /** Answers whose body declared failure: each retried, none loaded. */
  readonly failureBodies: number;
  /** What the partition leaves uncertain (a list that says it holds more, no list found). */
  readonly warnings: readonly PageWarning[];
  /** Values that typed columns could not hold (kept in raw), by field. */
  readonly untyped: readonly UntypedField[];
  /**
   * Columns the partition added or widened (etl.schema_changes), whatever its status: a change
   * commits before the write that needs it. Events, never warnings: nothing was lost. Absent from
   * the outcome of an attempt that could not even be recorded, which read nothing.
   */
  readonly schemaChanges?: readonly SchemaChange[];
  /** Where the time went: fetching pages, turning records into rows, writing them. */
  readonly timings: PhaseTimings;
  readonly durationMs: number;
  readonly error?: unknown;
}
