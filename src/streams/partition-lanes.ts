import type { LimitFunction } from "p-limit";

/**
 * Loads of many partitions through one pool, those of one partition one after another in the
 * order added. A replay loads a partition's syncs oldest first; waiting for a whole slice before
 * reading the next would leave the pool idle behind each slice's slowest partitions, and while
 * the next slice is read.
 */
export class PartitionLanes<T> {
  readonly #limit: LimitFunction;
  /** The last load added of each partition with one not yet settled. */
  readonly #last = new Map<string, Promise<void>>();
  #results: T[] = [];
  #pending = 0;
  #failure: { readonly error: unknown } | undefined;
  #wake: (() => void) | undefined;

  constructor(limit: LimitFunction) {
    this.#limit = limit;
  }

  /**
   * Runs `load` in the pool once the loads of `partition` added before have settled. After a
   * load failed, the loads not yet started do not start.
   */
  add(partition: string, load: () => Promise<T>): void {
    this.#pending += 1;
    const settled: Promise<void> = (this.#last.get(partition) ?? Promise.resolve())
      .then(() =>
        this.#limit(async () => {
          if (this.#failure) return;
          try {
            // Awaited first: `this.#results.push(await …)` reads the array before the wait, and
            // would push into one settledTo has already taken.
            const result = await load();
            this.#results.push(result);
          } catch (error) {
            this.#failure ??= { error };
          }
        }),
      )
      .finally(() => {
        this.#pending -= 1;
        if (this.#last.get(partition) === settled) this.#last.delete(partition);
        this.#wake?.();
      });
    this.#last.set(partition, settled);
  }

  /**
   * The results of the loads settled since the last call, once at most `pending` loads are left
   * (a failure's error once none is).
   */
  async settledTo(pending: number): Promise<T[]> {
    while (this.#pending > (this.#failure ? 0 : pending)) {
      await new Promise<void>((wake) => (this.#wake = wake));
      this.#wake = undefined;
    }
    if (this.#failure) throw this.#failure.error;
    const results = this.#results;
    this.#results = [];
    return results;
  }
}
