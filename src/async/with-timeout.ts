/** A work that did not settle in time; its message is safe to show to an operator. */
export class TimeoutError extends Error {
  constructor(ms: number) {
    super(`timed out after ${ms} ms`);
    this.name = "TimeoutError";
  }
}

/**
 * Settles with the work, or rejects with a TimeoutError once `ms` have passed. The work itself is
 * not cancelled (a ping or a query has no handle to abort); the caller just stops waiting, so a
 * dependency that hangs cannot hang a health probe or a scrape.
 */
export async function withTimeout<T>(work: () => Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new TimeoutError(ms)), ms);
  });
  try {
    return await Promise.race([work(), deadline]);
  } finally {
    clearTimeout(timer);
  }
}
