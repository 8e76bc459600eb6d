import type { Kysely } from "kysely";
import type { Answer } from "../../api/api-client.js";
import type { UntypedValue } from "../../api/untyped-values.js";
import type { EtlConfig } from "../../config/etl-config-schema.js";
import { PagingError } from "../../errors.js";
import type { Database } from "../../warehouse/schema.js";
import type { Warehouse } from "../../warehouse/database.js";
import {
  quarantine,
  type Rejection,
  quarantineRelease,
  rejectionHash,
} from "../../warehouse/rejected-records.js";
import { finishSucceededAttempt } from "../../warehouse/attempts.js";
import type { PageSizes } from "../../streams/page-sizes.js";
import type { PhaseTimer } from "../phase-timer.js";
import type { Stream } from "../../streams/stream.js";
import type { Cursor, Partition, ReadContext } from "../../streams/partition.js";
import type { PageRead } from "../../streams/paging.js";
import type { Claims } from "./untyped-report.js";
import { perStream } from "../../config/per-stream.js";
import { schemaContractOf } from "../../config/schema-contract.js";
import type { WriterNote } from "../../warehouse/writer-note.js";
import { LoadAccount } from "./load-account.js";
import { type LandPages, LoadPages, type PendingPage } from "./load-pages.js";
import {
  keepRows,
  missingRowDeletes,
  type OutputState,
  outputState,
  type RowIntake,
  writeRows,
} from "./output-rows.js";
import { TableEvolution } from "./table-evolution.js";
import { discoveredFingerprintsOf } from "../../columns/discovered-columns.js";

export interface PartitionLoadOptions {
  readonly db: Warehouse;
  readonly stream: Stream;
  readonly partition: Partition;
  readonly attemptId: string;
  readonly config: EtlConfig;
  /** The extraction's run date: snapshot rows carry it. */
  readonly today: string;
  readonly ownsLink: (link: string) => boolean;
  readonly pageSizes: PageSizes;
  /** The partition never ran: its rows are copied in as new until a stored key says otherwise. */
  readonly expectNew: boolean;
  /**
   * replace: this load derives the partition's whole state, so quarantined records it did not
   * reject again are released; add: it only adds (a series' window asked again from its checkpoint).
   */
  readonly quarantine: "replace" | "add";
  /** Where the readers note values they could not type. */
  readonly noted: UntypedValue[];
  readonly timer: PhaseTimer;
  /** Whether success moves the partition's checkpoint (a sync) or leaves it (a replay). */
  readonly checkpoint: boolean;
  readonly land: LandPages;
}

/** A rejection whose response is known only once its page is landed. */
interface PendingRejection extends Omit<Rejection, "responseId"> {
  readonly page: PendingPage;
}

/**
 * The load stage of one partition: reads records from its pages' responses, turns them into
 * rows, writes them in batches, and closes the partition. Used by a sync (pages as they are
 * fetched) and by a replay (pages as they were stored), so both write the same rows the same way.
 */
export class PartitionLoad {
  readonly account: LoadAccount;
  readonly #options: PartitionLoadOptions;
  readonly #evolution: TableEvolution;
  /** Who writes, as the history of restated values records it. */
  readonly #writer: WriterNote;
  readonly #states: OutputState[];
  readonly #pages = new LoadPages();
  readonly #intake: RowIntake;
  #pendingRejections: PendingRejection[] = [];
  /** The page whose records are being read: a record it rejects names its response. */
  #reading: PendingPage | null = null;
  readonly #rejectedHashes: Buffer[] = [];
  #position = 0;

  constructor(options: PartitionLoadOptions) {
    const { stream, partition, config, attemptId } = options;
    this.#options = options;
    this.account = new LoadAccount(stream.name, partition, options.timer);
    const contract = schemaContractOf(config.schema_contract, stream);
    this.#evolution = new TableEvolution({
      ...options,
      contract,
      origin: { stream: stream.name, partition: partition.key, attemptId },
      account: this.account,
    });
    this.#writer = {
      attempt: attemptId,
      replaying: !options.checkpoint,
      keepHistory: perStream<boolean>(config.history, stream, true),
    };
    this.#states = stream.outputs.map((output) => outputState(output, options.expectNew));
    this.#intake = {
      today: options.today,
      contract,
      sourceOf: (record) => this.#reading ?? (record as object),
      reject: (rejection) => this.#reject(rejection),
    };
  }

  /**
   * Reads one page, landed under its cursor's key, and writes whenever a batch is full, within
   * the page too: a large answer's rows are never all held at once (its first batch is written
   * with its responses). Returns what the page's list says of itself, for the paging to decide
   * where the next page starts: the load keeps no cursor.
   */
  async page(cursor: Cursor, answers: readonly Answer[]): Promise<PageRead> {
    const { stream, partition, timer, noted } = this.#options;
    if (this.#position === 0 && this.#pages.keys.length === 0) {
      await this.#evolution.learn(this.#states);
    }
    const context: ReadContext = {
      today: this.#options.today,
      position: this.#position,
      ownsLink: this.#options.ownsLink,
      pageSizes: this.#options.pageSizes,
    };
    const { records, list } = timer.timeSync("normalise", () => {
      const page = stream.read(answers, partition, context);
      this.#reading = this.#pages.add(cursor, answers, page.records);
      // An upstream that ignores the offset would otherwise be paged forever.
      if (this.#reading === null) throw new PagingError(stream.name, partition.key, this.#position);
      for (const warning of page.warnings ?? []) this.account.warn(warning);
      const table = stream.outputs[0]?.target.table ?? stream.name;
      for (const { item, reason } of page.rejected ?? []) {
        this.#reject({ table, reason, record: item });
      }
      return { records: page.records, list: page.list ?? null };
    });
    // Values noted while the page was read are found in its records; those noted while a record
    // became rows, in that record: a value read twice from one place counts once.
    const claims: Claims = new Map();
    this.account.untyped.addNoted(noted.splice(0), records, claims);
    for (let at = 0; at < records.length;) {
      at = timer.timeSync("normalise", () => this.#readUntilFull(records, at, claims));
      if (this.#rowsFull()) await this.#write(null);
    }
    this.#position += records.length;
    if (this.#pages.bytes >= this.#options.config.write_batch_bytes) await this.#write(null);
    return { list, context };
  }

  /** Writes what is pending and closes the partition. */
  async finish(attempt: { requests: number }): Promise<void> {
    await this.#write(attempt);
  }

  /** Reads records from `from` on until a batch of rows is full or the page ends; where it stopped. */
  #readUntilFull(records: readonly unknown[], from: number, claims: Claims): number {
    const { noted, partition, today } = this.#options;
    let at = from;
    while (at < records.length && !this.#rowsFull()) {
      const record = records[at];
      const position = this.#position + at;
      for (const state of this.#states) {
        keepRows(
          state,
          record,
          state.output.rows(record, partition, position, today),
          this.#intake,
        );
      }
      if (noted.length > 0) this.account.untyped.addNoted(noted.splice(0), [record], claims);
      at += 1;
    }
    return at;
  }

  #rowsFull(): boolean {
    const pending = this.#states.reduce((n, state) => n + state.pending.length, 0);
    return pending >= this.#options.config.write_batch_rows;
  }

  /** Quarantines a record of the page being read, with that page's first response. */
  #reject(rejection: Omit<PendingRejection, "page">): void {
    if (this.#reading === null) throw new Error("a record was rejected outside of a page");
    this.account.rowsRejected += 1;
    this.#pendingRejections.push({ ...rejection, page: this.#reading });
  }

  /** Writes the pending pages and rows; with `closing`, the write also closes the partition. */
  async #write(closing: { requests: number } | null): Promise<void> {
    const { db, stream, partition, timer } = this.#options;
    await this.#evolution.evolve(this.#states);
    await timer.time("write", () =>
      db.transaction().execute(async (trx) => {
        await this.#pages.land(trx, this.#options.land);
        await this.#evolution.linkChanges(trx, (page) => this.#pages.firstIdOf(page));
        for (const state of this.#states) {
          const rows = this.#evolution.completed(state);
          const tx = trx as unknown as Kysely<unknown>;
          this.account.rowsWritten += await writeRows(tx, state, rows, this.#writer);
          state.pending = [];
        }
        // Once the last rows are written: a discovered value may be found untyped there.
        if (closing !== null) this.account.warnUnread();
        const rejections = this.#pendingRejections.map(({ page, ...rejection }) => ({
          ...rejection,
          responseId: this.#pages.firstIdOf(page) ?? null,
        }));
        for (const rejection of rejections) this.#rejectedHashes.push(rejectionHash(rejection));
        await quarantine(trx, stream.name, partition.key, rejections);
        this.#pages.written();
        this.#pendingRejections = [];
        if (closing !== null) await this.#close(trx, closing.requests);
      }),
    );
    this.#evolution.linked();
  }

  /**
   * Closes the attempt in one statement with the deletes of the rows the partition no longer
   * holds, the release of what its quarantine no longer holds and, for a sync, the partition's new
   * checkpoint; then follows the columns other workers added meanwhile.
   */
  async #close(trx: Kysely<Database>, requests: number): Promise<void> {
    const { stream, partition, attemptId } = this.#options;
    const { warnings } = this.account;
    // A list not read whole is no reason to delete what was not read.
    const deletes = this.account.complete
      ? missingRowDeletes(this.#states, partition, this.#options.today, this.#writer)
      : [];
    // A partition that never ran before has nothing in quarantine but what this load put there.
    const releases =
      this.#options.quarantine === "replace" && !this.#options.expectNew
        ? [quarantineRelease(stream.name, partition.key, this.#rejectedHashes)]
        : [];
    const end = {
      ...this.account.attemptEnd("succeeded", requests),
      responseIds: this.#pages.responseIds,
      pages: this.#pages.keys,
    };
    const at = { stream: stream.name, partition: partition.key, warnings };
    const checkpoint =
      stream.checkpoint?.(partition) ?? (partition.day ? { day: partition.day } : {});
    // A replay leaves the checkpoint as the sync set it: its attempt alone is closed.
    const closed = await finishSucceededAttempt(trx, attemptId, end, {
      success: this.#options.checkpoint ? { ...at, checkpoint } : undefined,
      rederived: this.#options.checkpoint ? undefined : at,
      deletes,
      releases,
      discoveredOf: discoveredFingerprintsOf(
        this.#states.filter((s) => s.discovery).map((s) => s.output.target.table),
      ),
    });
    this.account.rowsWritten += closed.deleted;
    await this.#evolution.catchUp(trx, this.#states, closed.discovered);
  }
}
