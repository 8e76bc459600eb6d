import type { UntypedField } from "../api/untyped-values.js";
import type { SchemaChange } from "../columns/discovered-columns.js";
import type { PartitionOutcome } from "./partition-outcome.js";
import { mergeUntyped } from "./load/untyped-report.js";

export interface StreamSummary {
  readonly stream: string;
  readonly partitions: number;
  readonly failed: readonly PartitionOutcome[];
  /** Partitions stopped by a shutdown or a refused credential: they run again next time. */
  readonly interrupted: number;
  readonly requests: number;
  readonly rowsWritten: number;
  /** Records quarantined in etl.rejected_records. */
  readonly rowsRejected: number;
  /** Answers whose body declared failure: each retried, none loaded. */
  readonly failureBodies: number;
  /** Partitions with something uncertain (a list that says it holds more, no list found). */
  readonly warned: readonly PartitionOutcome[];
  /** Values typed columns could not hold (kept in raw), by field, over the stream's partitions. */
  readonly untyped: readonly UntypedField[];
  /** Columns its partitions added or widened, in the order made: events, not warnings. */
  readonly schemaChanges: readonly SchemaChange[];
  readonly durationMs: number;
}

/**
 * A stream's partition outcomes added up as they come, slice by slice: a stream's outcomes are
 * never all held at once, only the failed and the uncertain ones.
 */
export class StreamTally {
  readonly #stream: string;
  readonly #started = performance.now();
  #partitions = 0;
  #requests = 0;
  #rowsWritten = 0;
  #rowsRejected = 0;
  #failureBodies = 0;
  #interrupted = 0;
  readonly #failed: PartitionOutcome[] = [];
  readonly #warned: PartitionOutcome[] = [];
  #untyped: UntypedField[] = [];
  /** Few: a column is added once and widened a few times at most (types only widen). */
  readonly #schemaChanges: SchemaChange[] = [];

  constructor(stream: string) {
    this.#stream = stream;
  }

  add(outcomes: readonly PartitionOutcome[]): void {
    for (const outcome of outcomes) {
      this.#partitions += 1;
      this.#requests += outcome.requests;
      this.#rowsWritten += outcome.rowsWritten;
      this.#rowsRejected += outcome.rowsRejected;
      this.#failureBodies += outcome.failureBodies;
      this.#schemaChanges.push(...(outcome.schemaChanges ?? []));
      if (outcome.status === "failed") this.#failed.push(outcome);
      else if (outcome.status === "interrupted") this.#interrupted += 1;
      else if (outcome.warnings.length > 0) this.#warned.push(outcome);
    }
    this.#untyped = mergeUntyped([this.#untyped, ...outcomes.map((o) => o.untyped)]);
  }

  summary(): StreamSummary {
    return {
      stream: this.#stream,
      partitions: this.#partitions,
      failed: [...this.#failed],
      interrupted: this.#interrupted,
      requests: this.#requests,
      rowsWritten: this.#rowsWritten,
      rowsRejected: this.#rowsRejected,
      failureBodies: this.#failureBodies,
      warned: [...this.#warned],
      untyped: this.#untyped,
      schemaChanges: [...this.#schemaChanges],
      durationMs: performance.now() - this.#started,
    };
  }
}
