import type { Kysely } from "kysely";
import { jsonText } from "../../json/json-body.js";
import { rebuildFromRecorded } from "../../analytics/build-analytics.js";
import { SCHEMA_LOCK_WAIT } from "../../warehouse/lock-wait.js";
import type { SchemaContract } from "../../config/schema-contract.js";
import type { Warehouse } from "../../warehouse/database.js";
import type { Database } from "../../warehouse/schema.js";
import { columnTypes } from "../../warehouse/storable-values.js";
import { catchUpWrite, discoveredColumns, evolveTable } from "../../columns/discovered-columns.js";
import { type ChangeOrigin, linkSchemaChanges } from "../../columns/column-changes.js";
import type { Row } from "../../warehouse/row.js";
import { fieldsRead } from "../../columns/fields-read.js";
import { pathKey } from "../../columns/record-fields.js";
import { ColumnDiscovery } from "../../columns/column-discovery.js";
import type { LoadAccount } from "./load-account.js";
import type { PendingPage } from "./load-pages.js";
import type { OutputState } from "./output-rows.js";
import type { Partition } from "../../streams/partition.js";

export interface TableEvolutionOptions {
  readonly db: Warehouse;
  readonly partition: Partition;
  readonly today: string;
  /** What the stream's tables do with a field no column holds (schema_contract). */
  readonly contract: SchemaContract;
  /** Who asks for a change, as etl.schema_changes records it. */
  readonly origin: ChangeOrigin;
  readonly account: LoadAccount;
}

/**
 * The load's side of the tables' columns: which it has, which its rows need, and the changes
 * made for them under the stream's contract.
 */
export class TableEvolution {
  readonly #options: TableEvolutionOptions;
  /** Changes made for pages not landed yet: each names its page's response once it is. */
  #unlinked: { readonly changeId: string; readonly page: PendingPage | null }[] = [];

  constructor(options: TableEvolutionOptions) {
    this.#options = options;
  }

  /** Reads each table's columns, declared and discovered, before the first page. */
  async learn(states: readonly OutputState[]): Promise<void> {
    const { db, partition, today } = this.#options;
    for (const state of states) {
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
  async evolve(states: readonly OutputState[]): Promise<void> {
    const { db, contract, origin, account } = this.#options;
    for (const state of states) {
      const { discovery } = state;
      if (!discovery) continue;
      const { table } = state.output.target;
      const wanted = discovery.wanted();
      if (wanted.length === 0) continue;
      if (contract !== "evolve") {
        this.#keepInRaw(
          table,
          wanted.filter((w) => !discovery.hasColumn(w.field)),
        );
        continue;
      }
      const evolved = await evolveTable(
        db as Kysely<unknown>,
        table,
        wanted,
        origin,
        SCHEMA_LOCK_WAIT,
        rebuildFromRecorded,
      );
      discovery.learn(evolved.columns);
      state.targets.clear();
      account.schemaChanges.push(...evolved.changes);
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
    const { contract, account } = this.#options;
    for (const { field } of fields) {
      const message = `${table}: new field ${field.join(".")} kept in raw (schema_contract "${contract}")`;
      if (contract === "freeze") account.warn({ kind: "unmatched", message });
      else if (contract === "discard_value" && !account.discarded.includes(message)) {
        account.discarded.push(message);
      }
    }
  }

  /** The pending rows with every discovered column of their table (a misfit told as untyped). */
  completed(state: OutputState): readonly Row[] {
    const { discovery } = state;
    if (!discovery) return state.pending;
    const { untyped } = this.#options.account;
    return state.pending.map((row) =>
      discovery.complete(row, (field, expected, value) =>
        untyped.add(field, expected, 1, [jsonText(value)]),
      ),
    );
  }

  /** Names the response of the page that asked for each change made, now that it has landed. */
  async linkChanges(
    trx: Kysely<Database>,
    firstIdOf: (page: PendingPage) => string | undefined,
  ): Promise<void> {
    const links = this.#unlinked.flatMap(({ changeId, page }) => {
      const responseId = page === null ? undefined : firstIdOf(page);
      return responseId === undefined ? [] : [{ changeId, responseId }];
    });
    await linkSchemaChanges(trx, links);
  }

  /** The changes made so far are linked: the write that landed their pages committed. */
  linked(): void {
    this.#unlinked = [];
  }

  /**
   * The partition's rows given the discovered columns other workers made while it loaded, as the
   * statement closing it read them (after every row of the partition: a change committed later
   * waited for this transaction's rows, or found the earlier ones stored, and filled them).
   */
  async catchUp(
    trx: Kysely<Database>,
    states: readonly OutputState[],
    discovered: ReadonlyMap<string, string>,
  ): Promise<void> {
    for (const { discovery, output } of states) {
      if (!discovery) continue;
      const { table } = output.target;
      const seen = discovered.get(table) ?? "";
      const now = await catchUpWrite(trx, this.#options.db, table, discovery.known(), seen);
      if (now) discovery.learn(now);
    }
  }
}
