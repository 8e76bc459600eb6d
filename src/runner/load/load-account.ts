import type { Logger } from "../../logging/logger.js";
import type { AttemptEnd } from "../../warehouse/attempts.js";
import type { SchemaChange } from "../../columns/discovered-columns.js";
import type { PartitionOutcome, PartitionStatus } from "../partition-outcome.js";
import type { PageWarning, Partition } from "../../streams/partition.js";
import type { PhaseTimer } from "../phase-timer.js";
import { UntypedReport } from "./untyped-report.js";

/**
 * What a partition's load did and could not do, as its outcome, its log and its attempt's row
 * say it: rows written and quarantined, answers that declared failure, warnings, values left
 * untyped, columns added or widened.
 */
export class LoadAccount {
  rowsWritten = 0;
  rowsRejected = 0;
  /** Answers whose body declared failure (each retried; none loaded). */
  failureBodies = 0;
  /** The last of them as received, kept with the attempt for diagnosis. */
  #lastFailureBody: string | null = null;
  readonly warnings: PageWarning[] = [];
  readonly untyped = new UntypedReport();
  /** New fields kept in raw alone under schema_contract "discard_value": for the log. */
  readonly discarded: string[] = [];
  /** Columns this load added or widened (events, not warnings: nothing was lost). */
  readonly schemaChanges: SchemaChange[] = [];
  readonly #stream: string;
  readonly #partition: Partition;
  readonly #timer: PhaseTimer;

  constructor(stream: string, partition: Partition, timer: PhaseTimer) {
    this.#stream = stream;
    this.#partition = partition;
    this.#timer = timer;
  }

  warn(warning: PageWarning): void {
    if (!this.warnings.some((w) => w.kind === warning.kind && w.message === warning.message)) {
      this.warnings.push(warning);
    }
  }

  /**
   * Whether the partition's list was read whole: a list that may hold more than was read is not
   * a reason to delete what was not read; nor is one with quarantined records, whose keys are
   * unknown (a stored row may be theirs).
   */
  get complete(): boolean {
    return (
      this.rowsRejected === 0 &&
      !this.warnings.some((w) => w.kind === "truncated" || w.kind === "no_list")
    );
  }

  /**
   * What the readers could not type, as a warning like truncation (a replay with a fixed reader
   * clears it). Fields a frozen table has no column for are warned of as they are met.
   */
  warnUnread(): void {
    const untyped = this.untyped.fields();
    if (untyped.length > 0) {
      const count = untyped.reduce((sum, field) => sum + field.count, 0);
      const fields = untyped.map((field) => `${field.field} (${field.expected})`).join(", ");
      this.warn({ kind: "untyped", message: `${count} values could not be typed: ${fields}` });
    }
  }

  /** Notes an answer whose body declared failure (`body` as received): retried, not loaded. */
  noteFailureBody(body: string): void {
    this.failureBodies += 1;
    this.#lastFailureBody = body;
  }

  outcome(
    status: PartitionStatus,
    requests: number,
    durationMs: number,
    error?: unknown,
  ): PartitionOutcome {
    return {
      stream: this.#stream,
      partition: this.#partition.key,
      status,
      requests,
      rowsWritten: this.rowsWritten,
      rowsRejected: this.rowsRejected,
      failureBodies: this.failureBodies,
      warnings: [...this.warnings],
      untyped: this.untyped.fields(),
      schemaChanges: [...this.schemaChanges],
      timings: this.#timer.timings(),
      durationMs,
      ...(error === undefined ? {} : { error }),
    };
  }

  /** Says what the partition could not store or be sure of: never a quiet success. */
  report(logger: Logger, requests: number): void {
    const log = logger.child({ stream: this.#stream, partition: this.#partition.key });
    if (this.rowsRejected > 0) {
      log.warn({ rowsRejected: this.rowsRejected }, "records quarantined in etl.rejected_records");
    }
    for (const warning of this.warnings) log.warn({ kind: warning.kind }, warning.message);
    for (const { table, column, change, from, to } of this.schemaChanges) {
      log.info({ table, column, from, to }, `column ${change} (etl.schema_changes)`);
    }
    for (const message of this.discarded) log.info(message);
    if (this.untyped.size > 0) {
      log.warn({ untyped: this.untyped.fields() }, "values could not be typed (kept in raw)");
    }
    const timings = this.#timer.timings();
    log.debug({ requests, rowsWritten: this.rowsWritten, ...timings }, "partition loaded");
  }

  /**
   * The attempt's end as etl.attempts records it, built here alone: what the partition read,
   * wrote, could not type, quarantined, was refused and left uncertain, with `error` for an
   * attempt that did not succeed.
   */
  attemptEnd(status: AttemptEnd["status"], requests: number, error?: string): AttemptEnd {
    return {
      status,
      requests,
      rowsWritten: this.rowsWritten,
      untyped: this.untyped.fields(),
      rowsRejected: this.rowsRejected,
      failureBodies: this.failureBodies,
      failureBody: this.#lastFailureBody,
      warnings: this.warnings,
      ...(error === undefined ? {} : { error }),
    };
  }
}
