import { withTimeout } from "../async/with-timeout.js";
import { errorMessage } from "../errors.js";
import type { Logger } from "../logging/logger.js";

/** How long one deferred record may take, and how often it may fail while Postgres answers. */
const RECORD_TIMEOUT_MS = 10_000;
const RECORD_TRIES = 3;

/**
 * Records of attempts and runs cut short that Postgres could not take (it was away), kept in order
 * and written once it answers again, before the worker takes new work.
 */
export class DeferredRecords {
  readonly #logger: Logger;
  readonly #records: { readonly write: () => Promise<void>; failures: number }[] = [];
  #writing: Promise<boolean> | null = null;

  constructor(logger: Logger) {
    this.#logger = logger;
  }

  add(record: () => Promise<void>): void {
    this.#records.push({ write: record, failures: 0 });
  }

  get size(): number {
    return this.#records.length;
  }

  /**
   * Writes the records in order; false if one still fails (it and the rest are kept). One writer
   * at a time: a stop may come while the gate reopens.
   */
  write(): Promise<boolean> {
    this.#writing ??= this.#writeEach().finally(() => {
      this.#writing = null;
    });
    return this.#writing;
  }

  async #writeEach(): Promise<boolean> {
    for (let record = this.#records[0]; record !== undefined; record = this.#records[0]) {
      try {
        await withTimeout(record.write, RECORD_TIMEOUT_MS);
      } catch (error) {
        record.failures += 1;
        // Refused again and again while Postgres answers: the record itself is at fault, and
        // must not keep the worker from its jobs. (Its attempt is closed by the next attempt.)
        const dropped = record.failures >= RECORD_TRIES;
        this.#logger[dropped ? "error" : "warn"](
          { err: errorMessage(error), waiting: this.#records.length, failures: record.failures },
          dropped
            ? "a record of an attempt cut short by an outage was refused again: dropped"
            : "records of attempts cut short by an outage could not be written yet",
        );
        if (!dropped) return false;
      }
      this.#records.shift();
    }
    return true;
  }
}
