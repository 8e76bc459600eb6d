import type { Kysely } from "kysely";
import type { Answer } from "../../api/api-client.js";
import type { Database } from "../../warehouse/schema.js";
import { pageKey } from "../../streams/paging.js";
import type { Cursor } from "../../streams/partition.js";
import { RepeatedPages } from "../extract/repeated-pages.js";

/** A page read but not yet written: its responses are landed with its rows. */
export interface PendingPage {
  readonly cursor: Cursor;
  readonly answers: readonly Answer[];
}

/** Lands the pages' responses in the write's transaction; their ids, in page order. */
export type LandPages = (db: Kysely<Database>, pages: readonly PendingPage[]) => Promise<string[]>;

/**
 * The pages of a partition's load: those read and not written yet, the responses landed, and the
 * keys of every page read (a replay must read the same ones before it deletes).
 */
export class LoadPages {
  /** Bytes of the responses read and not written yet. */
  bytes = 0;
  readonly responseIds: string[] = [];
  readonly keys: string[] = [];
  #pending: PendingPage[] = [];
  /**
   * The first response of each page landed: a page written a batch at a time is landed with its
   * first batch, and a record a later batch rejects still names it.
   */
  readonly #firstIdOfPage = new WeakMap<PendingPage, string>();
  /** To catch an upstream serving a page again. */
  readonly #repeated = new RepeatedPages();

  /** Takes a page read; null when it repeats the one before (an upstream ignoring the offset). */
  add(cursor: Cursor, answers: readonly Answer[], records: readonly unknown[]): PendingPage | null {
    const bytes = answers.reduce((sum, answer) => sum + answer.bytes.length, 0);
    if (this.#repeated.repeats(records, bytes)) return null;
    const page = { cursor, answers };
    this.bytes += bytes;
    this.#pending.push(page);
    this.keys.push(pageKey(cursor));
    return page;
  }

  /**
   * Lands the pages not written yet, in the write's transaction, and notes the first response id
   * of each (the ids come in page order, a page's responses one after another).
   */
  async land(trx: Kysely<Database>, land: LandPages): Promise<void> {
    const ids = await land(trx, this.#pending);
    let at = 0;
    for (const page of this.#pending) {
      const id = ids[at];
      if (id !== undefined) this.#firstIdOfPage.set(page, id);
      at += page.answers.length;
    }
    this.responseIds.push(...ids);
  }

  /** The pages landed are written: what comes next is a new batch. */
  written(): void {
    this.#pending = [];
    this.bytes = 0;
  }

  /** The first response landed of a page, which its rejected records and changes name. */
  firstIdOf(page: PendingPage): string | undefined {
    return this.#firstIdOfPage.get(page);
  }
}
