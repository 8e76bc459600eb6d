import { withTimeout } from "../async/with-timeout.js";
import { errorMessage } from "../errors.js";
import type { Logger } from "../logging/logger.js";

export interface KeptReadingOptions {
  /** Longest wait for one read; past it the read counts as failed. */
  readonly timeoutMs: number;
  /** Told when reads start failing, and when they succeed again (once each, not every scrape). */
  readonly logger?: Logger;
}

/**
 * A metrics source read at scrape time from a dependency (Redis, Postgres), keeping what it last
 * read: a read that fails or times out leaves the value of the last one that succeeded, and marks
 * it stale. So an outage does not take the series away from the alerts that read them (they would
 * stop firing, a firing one would resolve); a process that has read nothing since it started has
 * nothing to keep. Reads asked for while one is under way share it: one scrape, one read.
 */
export class KeptReading<T> {
  readonly name: string;
  readonly #source: () => (() => Promise<T>) | undefined;
  readonly #options: KeptReadingOptions;
  #value: T | undefined;
  #stale: boolean | null = null;
  #reading: Promise<void> | null = null;

  /** `source` gives the source now (it may be set later); none means nothing to read. */
  constructor(
    name: string,
    source: () => (() => Promise<T>) | undefined,
    options: KeptReadingOptions,
  ) {
    this.name = name;
    this.#source = source;
    this.#options = options;
  }

  /** What the last read that succeeded gave; undefined when none has. */
  get value(): T | undefined {
    return this.#value;
  }

  /** Whether the last read failed (value is then an earlier one's); null when none was tried. */
  get stale(): boolean | null {
    return this.#stale;
  }

  /** Reads the source, or joins the read under way; never rejects. */
  read(): Promise<void> {
    const source = this.#source();
    if (!source) return Promise.resolve();
    this.#reading ??= this.#read(source).finally(() => {
      this.#reading = null;
    });
    return this.#reading;
  }

  async #read(source: () => Promise<T>): Promise<void> {
    const { logger, timeoutMs } = this.#options;
    try {
      this.#value = await withTimeout(source, timeoutMs);
      if (this.#stale === true) logger?.info({ source: this.name }, "metrics source reads again");
      this.#stale = false;
    } catch (error) {
      if (this.#stale !== true) {
        logger?.warn(
          { source: this.name, err: errorMessage(error) },
          this.#value === undefined
            ? "metrics source failed: its metrics are left out until it reads"
            : "metrics source failed: its metrics keep the values last read until it reads again",
        );
      }
      this.#stale = true;
    }
  }
}
