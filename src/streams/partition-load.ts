import type { Kysely, RawBuilder } from "kysely";
import { jsonText } from "../json/json-body.js";
import type { Exchange } from "../api/api-client.js";
import { untyped, type UntypedValue } from "../api/untyped-values.js";
import type { EtlConfig } from "../config/etl-config-schema.js";
import { PagingError } from "../errors.js";
import type { Logger } from "../logging/logger.js";
import type { Database } from "../warehouse/schema.js";
import type { Warehouse } from "../warehouse/database.js";
import {
  quarantine,
  type Rejection,
  rejectionHash,
  releaseQuarantine,
} from "../warehouse/rejected-records.js";
import { type ColumnTypes, columnTypes, storableRow } from "../warehouse/storable-values.js";
import { finishSucceededAttempt, type SyncRunEnd } from "../warehouse/sync-runs.js";
import {
  deleteMissingQuery,
  insertNewRows,
  keyOf,
  type TableTarget,
  rowsByShape,
  upsertRows,
} from "../warehouse/write-rows.js";
import { type Row } from "../warehouse/row.js";
import { KeptKeys } from "../warehouse/kept-keys.js";
import type { PageSizes } from "./page-sizes.js";
import { RepeatedPages } from "./repeated-pages.js";
import { pageKey } from "./paging.js";
import type { PhaseTimer } from "./phase-timer.js";
import type { PartitionOutcome, PartitionStatus } from "./partition-outcome.js";
import type { TableOutput, Stream } from "./stream.js";
import type { Cursor, PageWarning, Partition } from "./partition.js";
import { type Claims, UntypedReport } from "./untyped-report.js";
import { ColumnDiscovery } from "./column-discovery.js";
import { fieldsRead } from "../schema/fields-read.js";
import { pathKey } from "../schema/record-fields.js";
import {
  catchUpWrite,
  discoveredColumns,
  evolveTable,
  linkSchemaChanges,
  type SchemaChange,
} from "../warehouse/discovered-columns.js";
import { perStream } from "../config/per-stream.js";
import { type SchemaContract, schemaContractOf } from "../config/schema-contract.js";
import type { WriterNote } from "../warehouse/writer-note.js";

/** A page read but not yet written: its responses are landed with its rows. */
export interface PendingPage {
  readonly cursor: Cursor;
  readonly exchanges: readonly Exchange[];
}

export interface PartitionLoadOptions {
  readonly db: Warehouse;
  readonly stream: Stream;
  readonly partition: Partition;
  readonly runId: string;
  readonly config: EtlConfig;
  /** The extraction's run date: snapshot rows carry it. */
  readonly today: string;
  readonly ownsLink: (link: string) => boolean;
  readonly pageSizes: PageSizes;
  /** The partition never ran: its rows are copied in as new until a stored key says otherwise. */
  readonly expectNew: boolean;
  /**
   * replace: this load derives the partition's whole state, so quarantined records it did not
   * reject again are released; add: it only adds (an incremental window of a series).
   */
  readonly quarantine: "replace" | "add";
  /** Where the readers note values they could not type. */
  readonly noted: UntypedValue[];
  readonly timer: PhaseTimer;
  /** Whether success moves the partition's checkpoint (a sync) or leaves it (a replay). */
  readonly checkpoint: boolean;
  /** Lands the pages' responses in the write's transaction; their ids, in page order. */
  readonly land: (db: Kysely<Database>, pages: readonly PendingPage[]) => Promise<string[]>;
}

/** What the load tracks of one output while the partition's pages go by. */
interface OutputState {
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

/** A rejection whose response is known only once its page is landed. */
interface PendingRejection extends Omit<Rejection, "responseId"> {
  readonly page: PendingPage;
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

/**
 * The load stage of one partition: reads records from its pages' responses, turns them into
 * rows, writes them in batches, and closes the partition. Used by a sync (pages as they are
 * fetched) and by a replay (pages as they were stored), so both write the same rows the same way.
 */
export class PartitionLoad {
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
  /** Changes made for pages not landed yet: each names its page's response once it is. */
  #unlinked: { readonly changeId: string; readonly page: PendingPage | null }[] = [];

  readonly #options: PartitionLoadOptions;
  /** What the stream's tables do with a field no column holds (schema_contract). */
  readonly #contract: SchemaContract;
  /** Who writes, as the history of restated values records it. */
  readonly #writer: WriterNote;
  readonly #states: OutputState[];
  #pendingPages: PendingPage[] = [];
  #pendingRejections: PendingRejection[] = [];
  /** The page whose records are being read: a record it rejects names its response. */
  #reading: PendingPage | null = null;
  /**
   * The first response of each page landed: a page written a batch at a time is landed with its
   * first batch, and a record a later batch rejects still names it.
   */
  readonly #firstIdOfPage = new WeakMap<PendingPage, string>();
  readonly #rejectedHashes: Buffer[] = [];
  readonly #responseIds: string[] = [];
  /** Every page read, responses or none: a replay must read the same ones before it deletes. */
  readonly #pages: string[] = [];
  #pendingBytes = 0;
  #position = 0;
  /** To catch an upstream serving a page again. */
  readonly #repeated = new RepeatedPages();

  constructor(options: PartitionLoadOptions) {
    this.#options = options;
    this.#contract = schemaContractOf(options.config.schema_contract, options.stream);
    this.#writer = {
      attempt: options.runId,
      replaying: !options.checkpoint,
      keepHistory: perStream<boolean>(options.config.history, options.stream, true),
    };
    this.#states = options.stream.outputs.map((output) => ({
      output,
      pending: [],
      seen: new KeptKeys(output.target.key),
      within: new Map(),
      expectNew: options.expectNew,
      targets: new Map(),
      types: new Map(),
      discovery: null,
    }));
  }

  warn(warning: PageWarning): void {
    if (!this.warnings.some((w) => w.kind === warning.kind && w.message === warning.message)) {
      this.warnings.push(warning);
    }
  }

  /**
   * Reads one page and writes whenever a batch is full, within the page too: a large answer's
   * rows are never all held at once (its first batch is written with its responses). Returns
   * where the next page starts, as the stream's paging says from the page's list.
   */
  async page(cursor: Cursor, exchanges: readonly Exchange[]): Promise<Cursor> {
    const { stream, partition, timer } = this.#options;
    if (this.#position === 0 && this.#pages.length === 0) await this.#learnColumnTypes();
    const { records, next } = timer.timeSync("normalise", () => {
      const context = {
        today: this.#options.today,
        position: this.#position,
        ownsLink: this.#options.ownsLink,
        pageSizes: this.#options.pageSizes,
      };
      const page = stream.read(exchanges, partition, context);
      const step = stream.paging.next(page.list ?? null, cursor, context, partition);
      // An upstream that ignores the offset would otherwise be paged forever.
      const bytes = exchanges.reduce((sum, exchange) => sum + exchange.bytes.length, 0);
      if (this.#repeated.repeats(page.records, bytes)) {
        throw new PagingError(stream.name, partition.key, this.#position);
      }
      this.#pendingBytes += bytes;
      this.#reading = { cursor, exchanges };
      this.#pendingPages.push(this.#reading);
      this.#pages.push(pageKey(cursor));
      for (const warning of [...(page.warnings ?? []), ...step.warnings]) this.warn(warning);
      const table = stream.outputs[0]?.target.table ?? stream.name;
      for (const { item, reason } of page.rejected ?? []) {
        this.#reject({ table, reason, record: item });
      }
      return { records: page.records, next: step.next };
    });
    // Values noted while the page was read are found in its records; those noted while a record
    // became rows, in that record: a value read twice from one place counts once.
    const { noted } = this.#options;
    const claims: Claims = new Map();
    this.untyped.addNoted(noted.splice(0), records, claims);
    for (let at = 0; at < records.length;) {
      at = timer.timeSync("normalise", () => this.#readUntilFull(records, at, claims));
      if (this.#rowsFull()) await this.#write(null);
    }
    this.#position += records.length;
    if (this.#pendingBytes >= this.#options.config.write_batch_bytes) await this.#write(null);
    return next;
  }

  /** Reads records from `from` on until a batch of rows is full or the page ends; where it stopped. */
  #readUntilFull(records: readonly unknown[], from: number, claims: Claims): number {
    const { noted } = this.#options;
    let at = from;
    while (at < records.length && !this.#rowsFull()) {
      const record = records[at];
      this.#readRecord(record, this.#position + at);
      if (noted.length > 0) this.untyped.addNoted(noted.splice(0), [record], claims);
      at += 1;
    }
    return at;
  }

  #rowsFull(): boolean {
    const pending = this.#states.reduce((n, state) => n + state.pending.length, 0);
    return pending >= this.#options.config.write_batch_rows;
  }

  /** Writes what is pending and closes the partition. */
  async finish(run: { requests: number }): Promise<void> {
    await this.#write(run);
  }

  /**
   * What the readers could not type, as a warning like truncation (a replay with a fixed reader
   * clears it). Fields a frozen table has no column for are warned of as they are met.
   */
  #warnUnread(): void {
    const untyped = this.untyped.fields();
    if (untyped.length > 0) {
      const count = untyped.reduce((sum, field) => sum + field.count, 0);
      const fields = untyped.map((field) => `${field.field} (${field.expected})`).join(", ");
      this.warn({ kind: "untyped", message: `${count} values could not be typed: ${fields}` });
    }
  }

  outcome(
    status: PartitionStatus,
    requests: number,
    durationMs: number,
    error?: unknown,
  ): PartitionOutcome {
    const { stream, partition, timer } = this.#options;
    return {
      stream: stream.name,
      partition: partition.key,
      status,
      requests,
      rowsWritten: this.rowsWritten,
      rowsRejected: this.rowsRejected,
      failureBodies: this.failureBodies,
      warnings: [...this.warnings],
      untyped: this.untyped.fields(),
      schemaChanges: [...this.schemaChanges],
      timings: timer.timings(),
      durationMs,
      ...(error === undefined ? {} : { error }),
    };
  }

  /** Says what the partition could not store or be sure of: never a quiet success. */
  report(logger: Logger, requests: number): void {
    const { stream, partition, timer } = this.#options;
    const log = logger.child({ stream: stream.name, partition: partition.key });
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
    log.debug({ requests, rowsWritten: this.rowsWritten, ...timer.timings() }, "partition loaded");
  }

  /** Notes an answer whose body declared failure (`body` as received): retried, not loaded. */
  noteFailureBody(body: string): void {
    this.failureBodies += 1;
    this.#lastFailureBody = body;
  }

  /** What the attempt keeps of the answers that declared failure. */
  /**
   * The attempt's end as etl.sync_runs records it, built here alone: what the partition read,
   * wrote, could not type, quarantined, was refused and left uncertain, with `error` for an
   * attempt that did not succeed.
   */
  attemptEnd(status: SyncRunEnd["status"], requests: number, error?: string): SyncRunEnd {
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

  async #learnColumnTypes(): Promise<void> {
    const { db, partition, today } = this.#options;
    for (const state of this.#states) {
      const { output } = state;
      state.types = await columnTypes(db, output.target.table);
      const covered = output.fieldsRead
        ? output.fieldsRead(partition, today)
        : fieldsRead((record) => output.rows(record, partition, 0, today)[0]?.raw);
      state.discovery = new ColumnDiscovery(
        covered,
        await discoveredColumns(db, output.target.table),
      );
    }
  }

  /**
   * Gives each table the columns its pending rows need, each change committed on its own before
   * the write (evolveTable); under another contract, what has no column stays in raw (#keepInRaw).
   */
  async #evolveTables(): Promise<void> {
    const { db, stream, partition, runId } = this.#options;
    for (const state of this.#states) {
      const { discovery } = state;
      if (!discovery) continue;
      const { table } = state.output.target;
      const wanted = discovery.wanted();
      if (wanted.length === 0) continue;
      if (this.#contract !== "evolve") {
        this.#keepInRaw(
          table,
          wanted.filter((w) => !discovery.hasColumn(w.field)),
        );
        continue;
      }
      const evolved = await evolveTable(db as Kysely<unknown>, table, wanted, {
        stream: stream.name,
        partition: partition.key,
        runId,
      });
      discovery.learn(evolved.columns);
      state.targets.clear();
      this.schemaChanges.push(...evolved.changes);
      for (const change of evolved.changes) {
        const source = wanted.find((w) => pathKey(w.field) === pathKey(change.field))?.source;
        this.#unlinked.push({ changeId: change.changeId, page: (source as PendingPage) ?? null });
      }
    }
  }

  /**
   * New fields a contract keeps out of the table: warned of under "freeze", said in the log under
   * "discard_value" (raw has them; nothing is missing). Under "discard_row" their rows were
   * quarantined as they were read.
   */
  #keepInRaw(table: string, fields: readonly { readonly field: readonly string[] }[]): void {
    for (const { field } of fields) {
      const message = `${table}: new field ${field.join(".")} kept in raw (schema_contract "${this.#contract}")`;
      if (this.#contract === "freeze") this.warn({ kind: "unmatched", message });
      else if (this.#contract === "discard_value" && !this.discarded.includes(message)) {
        this.discarded.push(message);
      }
    }
  }

  /**
   * The partition's rows given the discovered columns other workers made while it loaded, as the
   * statement closing it read them (after every row of the partition: a change committed later
   * waited for this transaction's rows, or found the earlier ones stored, and filled them).
   */
  async #catchUp(trx: Kysely<Database>, discovered: ReadonlyMap<string, string>) {
    for (const { discovery, output } of this.#states) {
      if (!discovery) continue;
      const { table } = output.target;
      const seen = discovered.get(table) ?? "";
      const now = await catchUpWrite(trx, this.#options.db, table, discovery.known(), seen);
      if (now) discovery.learn(now);
    }
  }

  /** The pending rows with every discovered column of their table (a misfit told as untyped). */
  #completed(state: OutputState): readonly Row[] {
    const { discovery } = state;
    if (!discovery) return state.pending;
    return state.pending.map((row) =>
      discovery.complete(row, (field, expected, value) =>
        this.untyped.add(field, expected, 1, [jsonText(value)]),
      ),
    );
  }

  /** Names the response of the page that asked for each change made, now that it has landed. */
  async #linkChanges(trx: Kysely<Database>): Promise<void> {
    const links = this.#unlinked.flatMap(({ changeId, page }) => {
      const responseId = page === null ? undefined : this.#firstIdOfPage.get(page);
      return responseId === undefined ? [] : [{ changeId, responseId }];
    });
    await linkSchemaChanges(trx, links);
  }

  /** Quarantines a record of the page being read, with that page's first response. */
  #reject(rejection: Omit<PendingRejection, "page">): void {
    if (this.#reading === null) throw new Error("a record was rejected outside of a page");
    this.rowsRejected += 1;
    this.#pendingRejections.push({ ...rejection, page: this.#reading });
  }

  /** The rows of one record in every table of the stream, kept for their batches. */
  #readRecord(record: unknown, position: number): void {
    const { partition, today } = this.#options;
    for (const state of this.#states) {
      this.#keepRows(state, record, state.output.rows(record, partition, position, today));
    }
  }

  #keepRows(state: OutputState, record: unknown, rows: readonly Row[]): void {
    const { output } = state;
    const { key } = output.target;
    const { today } = this.#options;
    for (const read of rows) {
      const stamped = output.mode === "snapshot" ? { ...read, snapshot_date: today } : read;
      const problem = keyProblem(stamped, key);
      if (problem !== null) {
        this.#reject({
          table: output.target.table,
          reason: problem,
          record: stamped.raw ?? record,
        });
        continue;
      }
      for (const expanded of expandKeyArrays(stamped, key)) {
        const row = this.#storable(state, expanded, record);
        if (row === null) continue;
        const unheld = state.discovery?.note(row, this.#reading ?? (record as object)) ?? [];
        if (unheld.length > 0 && this.#contract === "discard_row") {
          this.#reject({
            table: output.target.table,
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
  #storable(state: OutputState, read: Row, record: unknown): Row | null {
    const { row, changes } = storableRow(read, state.types);
    const { table, key } = state.output.target;
    const keyChange = changes.find((change) => key.includes(change.column));
    if (keyChange) {
      this.#reject({
        table,
        reason: `key column ${keyChange.column} holds a value Postgres cannot store (${keyChange.expected})`,
        record: read.raw ?? record,
      });
      return null;
    }
    for (const change of changes) untyped(change.expected, change.value);
    return row;
  }

  async #writeRows(db: Kysely<unknown>, state: OutputState): Promise<number> {
    let written = 0;
    const pending = this.#completed(state);
    const table = {
      ...state.output.target,
      version: state.discovery?.version(),
      writer: this.#writer,
    };
    for (const { target, rows } of rowsByShape(table, pending, state.targets)) {
      if (state.expectNew) {
        const copied = await insertNewRows(db, target, rows);
        if (copied !== null) {
          written += copied;
          continue;
        }
        state.expectNew = false;
      }
      written += await upsertRows(db, target, rows);
    }
    return written;
  }

  /** Writes the pending pages and rows; with `closing`, the write also closes the partition. */
  async #write(closing: { requests: number } | null): Promise<void> {
    const { db, stream, partition, runId, timer } = this.#options;
    await this.#evolveTables();
    await timer.time("write", () =>
      db.transaction().execute(async (trx) => {
        const tx = trx as unknown as Kysely<unknown>;
        const ids = await this.#options.land(trx, this.#pendingPages);
        this.#noteFirstIds(ids);
        this.#responseIds.push(...ids);
        await this.#linkChanges(trx);
        for (const state of this.#states) {
          this.rowsWritten += await this.#writeRows(tx, state);
          state.pending = [];
        }
        // Once the last rows are written: a discovered value may be found untyped there.
        if (closing !== null) this.#warnUnread();
        const rejections = this.#pendingRejections.map(({ page, ...rejection }) => ({
          ...rejection,
          responseId: this.#firstIdOfPage.get(page) ?? null,
        }));
        for (const rejection of rejections) this.#rejectedHashes.push(rejectionHash(rejection));
        await quarantine(trx, stream.name, partition.key, rejections);
        this.#pendingPages = [];
        this.#pendingRejections = [];
        this.#pendingBytes = 0;
        if (closing === null) return;
        const deletes = await this.#close(trx);
        const end = {
          ...this.attemptEnd("succeeded", closing.requests),
          responseIds: this.#responseIds,
          pages: this.#pages,
        };
        // A replay leaves the checkpoint as the sync set it: its attempt alone is closed.
        const success = this.#options.checkpoint
          ? {
              stream: stream.name,
              partition: partition.key,
              checkpoint:
                stream.checkpoint?.(partition) ?? (partition.day ? { day: partition.day } : {}),
              warnings: this.warnings,
            }
          : undefined;
        const rederived = success
          ? undefined
          : { stream: stream.name, partition: partition.key, warnings: this.warnings };
        const closed = await finishSucceededAttempt(trx, runId, end, {
          success,
          rederived,
          deletes,
          discoveredOf: this.#states.filter((s) => s.discovery).map((s) => s.output.target.table),
        });
        this.rowsWritten += closed.deleted;
        await this.#catchUp(trx, closed.discovered);
      }),
    );
    this.#unlinked = [];
  }

  /** Notes the first response id of each pending page, landed as `ids` (in page order). */
  #noteFirstIds(ids: readonly string[]): void {
    let at = 0;
    for (const page of this.#pendingPages) {
      const id = ids[at];
      if (id !== undefined) this.#firstIdOfPage.set(page, id);
      at += page.exchanges.length;
    }
  }

  /**
   * Releases what the quarantine no longer holds, and returns the deletes of the rows the
   * partition no longer holds: they run in the statement that closes the attempt.
   */
  async #close(trx: Kysely<Database>): Promise<RawBuilder<unknown>[]> {
    const { stream, partition, today } = this.#options;
    const deletes: RawBuilder<unknown>[] = [];
    // A list that may hold more than was read is not a reason to delete what was not read; nor
    // is one with quarantined records, whose keys are unknown (a stored row may be theirs).
    const complete =
      this.rowsRejected === 0 &&
      !this.warnings.some((w) => w.kind === "truncated" || w.kind === "no_list");
    for (const state of this.#states) {
      const { output } = state;
      if (output.mode === "upsert" || !complete) continue;
      const snapshot = output.mode === "snapshot" ? { snapshot_date: today } : {};
      const scopes =
        "replaceWithin" in output
          ? [...state.within.values()]
          : [{ ...output.scope(partition), ...snapshot }];
      if (scopes.length > 0) {
        deletes.push(deleteMissingQuery(output.target, scopes, state.seen, this.#writer));
      }
    }
    // A partition that never ran before has nothing in quarantine but what this load put there.
    if (this.#options.quarantine === "replace" && !this.#options.expectNew) {
      await releaseQuarantine(trx, stream.name, partition.key, this.#rejectedHashes);
    }
    return deletes;
  }
}
