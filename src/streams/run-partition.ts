import type { Kysely } from "kysely";
import type { ApiClient } from "../api/api-client.js";
import type { EtlConfig } from "../config/etl-config-schema.js";
import type { Logger } from "../logging/logger.js";
import type { Warehouse } from "../warehouse/database.js";
import { markPartitionFailed, markPartitionSucceeded } from "../warehouse/stream-state.js";
import { finishSyncRun, startSyncRun } from "../warehouse/sync-runs.js";
import { deleteMissing, insertNewRows, type Row, upsertRows } from "../warehouse/write-rows.js";
import { PagingError } from "../errors.js";
import { collectUntyped, type UntypedField, type UntypedValue } from "../api/untyped-values.js";
import { PhaseTimer, type PhaseTimings } from "./phase-timer.js";
import type { Output, Partition, Stream } from "./stream.js";
import { UntypedReport } from "./untyped-report.js";

export interface RunnerDeps {
  readonly db: Warehouse;
  readonly api: ApiClient;
  readonly logger: Logger;
  readonly config: EtlConfig;
  /** The run's date (UTC): snapshot rows are stamped with it. */
  readonly today: string;
  readonly signal?: AbortSignal;
}

export interface PartitionOutcome {
  readonly stream: string;
  readonly partition: string;
  readonly status: "succeeded" | "failed";
  readonly requests: number;
  readonly rowsWritten: number;
  /** Rows dropped because a key column had no value (the record stays in no table). */
  readonly rowsSkipped: number;
  /** Values that typed columns could not hold (kept in raw), by field. */
  readonly untyped: readonly UntypedField[];
  /** Where the time went: fetching pages, turning records into rows, writing them. */
  readonly timings: PhaseTimings;
  readonly durationMs: number;
  readonly error?: unknown;
}

/** What the runner tracks of one output while the partition's pages go by. */
interface OutputState {
  readonly output: Output<Partition, unknown>;
  /** Rows read but not yet written. */
  pending: Row[];
  /** Keys written so far, for replace and snapshot (a partition's keys, never a whole stream). */
  readonly seen: Row[];
  /**
   * The rows are taken to be new, and copied straight in, until a stored key proves otherwise:
   * true while the partition never ran before (a first backfill), false once it did.
   */
  expectNew: boolean;
}

/** Writes an output's pending rows: as new ones while they are expected to be, else merged. */
async function writePending(db: Kysely<unknown>, state: OutputState): Promise<number> {
  if (state.expectNew) {
    const copied = await insertNewRows(db, state.output.target, state.pending);
    if (copied !== null) return copied;
    state.expectNew = false;
  }
  return upsertRows(db, state.output.target, state.pending);
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Syncs one partition: pages until the stream says it is complete, writing its rows in batches
 * of `write_batch_rows` rows or `write_batch_bytes` of JSON read (wide records, such as products
 * with their assets, reach the memory bound long before the row count), each in its own
 * transaction. The last batch, the removal of rows the upstream no longer returns, the
 * checkpoint and the audit row commit together, so a crash re-runs at most this partition, and
 * re-running it changes nothing.
 */
export async function runPartition(
  deps: RunnerDeps,
  stream: Stream,
  partition: Partition,
): Promise<PartitionOutcome> {
  const noted: UntypedValue[] = [];
  return collectUntyped(noted, () => runNoting(deps, stream, partition, noted));
}

async function runNoting(
  deps: RunnerDeps,
  stream: Stream,
  partition: Partition,
  noted: UntypedValue[],
): Promise<PartitionOutcome> {
  const started = performance.now();
  const { db, logger } = deps;
  const log = logger.child({ stream: stream.name, partition: partition.key });
  const { runId, firstAttempt } = await startSyncRun(db, stream.name, partition.key);
  let requests = 0;
  let rowsWritten = 0;
  let rowsSkipped = 0;
  const untyped = new UntypedReport();
  const timer = new PhaseTimer();
  const states: OutputState[] = stream.outputs.map((output) => ({
    output,
    pending: [],
    seen: [],
    expectNew: firstAttempt,
  }));
  const withSnapshot = (output: Output<Partition, unknown>, row: Row): Row =>
    output.mode === "snapshot" ? { ...row, snapshot_date: deps.today } : row;

  const context = {
    api: deps.api,
    config: deps.config,
    today: deps.today,
    call: { signal: deps.signal, onAttempt: () => void (requests += 1) },
  };

  /** Writes the pending rows; the last write also closes the partition. */
  const write = (last: boolean) =>
    timer.time("write", () =>
      db.transaction().execute(async (trx) => {
        const tx = trx as unknown as Kysely<unknown>;
        for (const state of states) {
          rowsWritten += await writePending(tx, state);
          state.pending = [];
        }
        if (!last) return;
        for (const state of states) {
          if (state.output.mode === "upsert" || !state.output.scope) continue;
          const scope = withSnapshot(state.output, state.output.scope(partition));
          rowsWritten += await deleteMissing(tx, state.output.target, scope, state.seen);
        }
        await markPartitionSucceeded(
          trx,
          stream.name,
          partition.key,
          checkpointOf(stream, partition),
        );
        await finishSyncRun(trx, runId, {
          status: "succeeded",
          requests,
          rowsWritten,
          untyped: untyped.fields(),
        });
      }),
    );

  try {
    let cursor: unknown = null;
    let position = 0;
    let previousPage = "";
    let pendingBytes = 0;
    for (;;) {
      const page = await timer.time("fetch", () => stream.fetch(context, partition, cursor));
      const last = page.next === null || page.next === undefined;
      const pending = timer.timeSync("normalise", () => {
        // An upstream that ignores the offset would otherwise be paged forever.
        const thisPage = page.records.length > 0 ? JSON.stringify(page.records) : "";
        if (thisPage !== "" && thisPage === previousPage) {
          throw new PagingError(stream.name, partition.key, position);
        }
        previousPage = thisPage;
        pendingBytes += thisPage.length;
        let count = 0;
        for (const state of states) {
          for (const [i, record] of page.records.entries()) {
            for (const read of state.output.rows(record, partition, position + i)) {
              const row = withSnapshot(state.output, read);
              if (!state.output.target.key.every((c) => row[c] !== null && row[c] !== undefined)) {
                rowsSkipped += 1;
                continue;
              }
              state.pending.push(row);
              if (state.output.mode !== "upsert")
                state.seen.push(pick(row, state.output.target.key));
            }
          }
          count += state.pending.length;
        }
        position += page.records.length;
        untyped.addNoted(noted.splice(0), page.records);
        return count;
      });
      const { write_batch_rows, write_batch_bytes } = deps.config;
      if (last || pending >= write_batch_rows || pendingBytes >= write_batch_bytes) {
        await write(last);
        pendingBytes = 0;
      }
      if (last) break;
      cursor = page.next;
    }
    if (rowsSkipped > 0) log.warn({ rowsSkipped }, "rows without a key value were not stored");
    if (untyped.size > 0) {
      log.warn({ untyped: untyped.fields() }, "values could not be typed (kept in raw)");
    }
    log.debug({ requests, rowsWritten, ...timer.timings() }, "partition synced");
    return outcome("succeeded");
  } catch (error) {
    const message = describe(error);
    log.error({ err: message, requests }, "partition failed");
    await db.transaction().execute(async (trx) => {
      await markPartitionFailed(trx, stream.name, partition.key, message);
      await finishSyncRun(trx, runId, {
        status: "failed",
        requests,
        rowsWritten,
        error: message,
        untyped: untyped.fields(),
      });
    });
    return outcome("failed", error);
  }

  function outcome(status: "succeeded" | "failed", error?: unknown): PartitionOutcome {
    return {
      stream: stream.name,
      partition: partition.key,
      status,
      requests,
      rowsWritten,
      rowsSkipped,
      untyped: untyped.fields(),
      timings: timer.timings(),
      durationMs: performance.now() - started,
      ...(error === undefined ? {} : { error }),
    };
  }
}

/** A daily partition remembers its day, which is how fresh the stream is. */
function checkpointOf(stream: Stream, partition: Partition): unknown {
  return stream.checkpoint?.(partition) ?? (partition.day ? { day: partition.day } : {});
}

function pick(row: Row, columns: readonly string[]): Row {
  return Object.fromEntries(columns.map((column) => [column, row[column]]));
}
