import { withTimeout } from "../async/with-timeout.js";
import { errorMessage } from "../errors.js";
import type { KeptReadingOptions } from "./kept-reading.js";

/** How long one read of a scrape-time source serves the gauges that show it: within one scrape. */
const SCRAPE_READ_REUSE_MS = 500;

/**
 * A scrape-time source read once per scrape by the gauges that show it: they collect at the same
 * time. Undefined without the source, or when it failed.
 */
export function scrapeReader<T>(
  name: string,
  pick: () => (() => Promise<T>) | undefined,
  options: KeptReadingOptions,
): () => Promise<T | undefined> {
  let read: { at: number; value: Promise<T | undefined> } | null = null;
  return () => {
    const source = pick();
    if (!source) return Promise.resolve(undefined);
    const now = performance.now();
    if (!read || now - read.at > SCRAPE_READ_REUSE_MS) {
      read = { at: now, value: readSource(name, source, options) };
    }
    return read.value;
  };
}

/** A failing source costs its own metric, never the whole scrape (and the process metrics). */
async function readSource<T>(
  name: string,
  source: () => Promise<T>,
  { timeoutMs, logger }: KeptReadingOptions,
): Promise<T | undefined> {
  try {
    return await withTimeout(source, timeoutMs);
  } catch (error) {
    logger?.warn(
      { source: name, err: errorMessage(error) },
      "metrics source failed; its metric is left out of this scrape",
    );
    return undefined;
  }
}
