import { untyped } from "../../api/untyped-values.js";
import type { SchemaContract } from "../../config/schema-contract.js";
import type { Rejection } from "../../warehouse/rejected-records.js";
import { type Row } from "../../warehouse/row.js";
import { KeptKeys } from "../../warehouse/kept-keys.js";
import { type ColumnTypes, storableRow } from "../../warehouse/storable-values.js";
import type { Kysely, RawBuilder } from "kysely";
import { deleteMissingQuery } from "../../warehouse/delete-missing.js";
import {
  insertNewRows,
  keyOf,
  rowsByShape,
  type TableTarget,
  upsertRows,
} from "../../warehouse/write-rows.js";
import type { WriterNote } from "../../warehouse/writer-note.js";
import type { ColumnDiscovery } from "../../columns/column-discovery.js";
import type { Partition } from "../../streams/partition.js";
import type { TableOutput } from "../../streams/stream.js";

/** What a load tracks of one output while the partition's pages go by. */
export interface OutputState {
  readonly output: TableOutput<Partition, unknown>;
  /** Rows read but not yet written. */
  pending: Row[];
  /** Keys written so far, for replace and snapshot (a partition's keys, never a whole stream). */
  readonly seen: KeptKeys;
  /** Values of `replaceWithin` columns among the rows read. */
  readonly within: Map<string, Row>;
  /** Rows are copied in as new until a stored key proves otherwise. */
  expectNew: boolean;
  /** The targets of the row shapes written so far (see rowsByShape). */
  readonly targets: Map<string, TableTarget>;
  /** The target table's columns as Postgres declares them, known from the first page on. */
  types: ColumnTypes;
  /** The columns of the fields no declared column holds, known from the first page on. */
  discovery: ColumnDiscovery | null;
}

export function outputState(
  output: TableOutput<Partition, unknown>,
  expectNew: boolean,
): OutputState {
  return {
    output,
    pending: [],
    seen: new KeptKeys(output.target.key),
    within: new Map(),
    expectNew,
    targets: new Map(),
    types: new Map(),
    discovery: null,
  };
}

/** Where the rows of a record go besides their output: the run's day, the contract, the quarantine. */
export interface RowIntake {
  readonly today: string;
  /** What the stream's tables do with a field no column holds (schema_contract). */
  readonly contract: SchemaContract;
  /** What carried a field first met in `record`: the page being read, or the record. */
  sourceOf(record: unknown): object;
  reject(rejection: Omit<Rejection, "responseId">): void;
}

/** Keeps the rows read from one record for the output's next batch, or quarantines them. */
export function keepRows(
  state: OutputState,
  record: unknown,
  rows: readonly Row[],
  intake: RowIntake,
): void {
  const { output } = state;
  const { key, table } = output.target;
  for (const read of rows) {
    const stamped = output.mode === "snapshot" ? { ...read, snapshot_date: intake.today } : read;
    const problem = keyProblem(stamped, key);
    if (problem !== null) {
      intake.reject({ table, reason: problem, record: stamped.raw ?? record });
      continue;
    }
    for (const expanded of expandKeyArrays(stamped, key)) {
      const row = storable(state, expanded, record, intake);
      if (row === null) continue;
      const unheld = state.discovery?.note(row, intake.sourceOf(record)) ?? [];
      if (unheld.length > 0 && intake.contract === "discard_row") {
        intake.reject({
          table,
          reason: `new field ${unheld.join(", ")} (schema_contract "discard_row")`,
          record: row.raw ?? record,
        });
        continue;
      }
      state.pending.push(row);
      if (output.mode === "upsert") continue;
      state.seen.add(row);
      if ("replaceWithin" in output) {
        const within = pick(row, output.replaceWithin);
        state.within.set(keyOf(within, output.replaceWithin), within);
      }
    }
  }
}

/**
 * The row as its table can hold it: a value its column cannot hold is null (a JSON value keeps
 * what it can), noted as untyped; a row whose key cannot be stored is quarantined (null).
 */
function storable(state: OutputState, read: Row, record: unknown, intake: RowIntake): Row | null {
  const { row, changes } = storableRow(read, state.types);
  const { table, key } = state.output.target;
  const keyChange = changes.find((change) => key.includes(change.column));
  if (keyChange) {
    intake.reject({
      table,
      reason: `key column ${keyChange.column} holds a value Postgres cannot store (${keyChange.expected})`,
      record: read.raw ?? record,
    });
    return null;
  }
  for (const change of changes) untyped(change.expected, change.value);
  return row;
}

/**
 * Writes an output's rows, one statement per row shape: copied in as new while the partition's
 * rows are new, merged by key from the first that is not. How many were written.
 */
export async function writeRows(
  db: Kysely<unknown>,
  state: OutputState,
  rows: readonly Row[],
  writer: WriterNote,
): Promise<number> {
  let written = 0;
  const table = {
    ...state.output.target,
    version: state.discovery?.version(),
    writer,
    types: columnTypesNow(state),
  };
  for (const { target, rows: shaped } of rowsByShape(table, rows, state.targets)) {
    if (state.expectNew) {
      const copied = await insertNewRows(db, target, shaped);
      if (copied !== null) {
        written += copied;
        continue;
      }
      state.expectNew = false;
    }
    written += await upsertRows(db, target, shaped);
  }
  return written;
}

/**
 * The table's columns' types as this load knows them: as declared, a discovered column's as it
 * is now (it may have widened since the declared types were read).
 */
function columnTypesNow(state: OutputState): ReadonlyMap<string, string> {
  const types = new Map([...state.types].map(([column, { type }]) => [column, type]));
  for (const { column, kind } of state.discovery?.known().values() ?? []) types.set(column, kind);
  return types;
}

/**
 * The deletes of the rows the partition's outputs no longer hold, for a list read whole: they run
 * in the statement that closes the attempt.
 */
export function missingRowDeletes(
  states: readonly OutputState[],
  partition: Partition,
  today: string,
  writer: WriterNote,
): RawBuilder<unknown>[] {
  return states.flatMap(({ output, within, seen }) => {
    if (output.mode === "upsert") return [];
    const snapshot = output.mode === "snapshot" ? { snapshot_date: today } : {};
    const scopes =
      "replaceWithin" in output
        ? [...within.values()]
        : [{ ...output.scope(partition), ...snapshot }];
    return scopes.length > 0 ? [deleteMissingQuery(output.target, scopes, seen, writer)] : [];
  });
}

function pick(row: Row, columns: readonly string[]): Row {
  return Object.fromEntries(columns.map((column) => [column, row[column]]));
}

/**
 * The rows of one read row: a key column holding an array gives one row per element (a record
 * listing several links is several rows); an empty array, none.
 */
function expandKeyArrays(row: Row, key: readonly string[]): Row[] {
  let rows: Row[] = [row];
  for (const column of key) {
    const value = row[column];
    if (!Array.isArray(value)) continue;
    rows = rows.flatMap((partial) =>
      value.map((element: unknown) => ({ ...partial, [column]: element })),
    );
  }
  return rows;
}

/** Why a row cannot be stored, or null when its key is whole. */
function keyProblem(row: Row, key: readonly string[]): string | null {
  const missing = key.filter((column) => {
    const value = row[column];
    return value === null || value === undefined || (Array.isArray(value) && value.length === 0);
  });
  return missing.length === 0 ? null : `no value for key column ${missing.join(", ")}`;
}
