import type { PageSizeFacts } from "../warehouse/page-size-facts.js";
/**
 * What the upstream has shown of its page sizes, per operation. An upstream may serve fewer
 * records than asked without saying so (a cap below the `limit` asked): a short page is then not
 * the end. The first short page of an operation is followed by one more request (a probe): if it
 * brings records, the short page's length is the cap, learned for every later partition; if not,
 * that length is known to end lists. Later short pages shorter than that are taken as ends with
 * no probe (a cap is at least as long as any page served). One as long still needs its probe: a
 * list that happened to end exactly at the cap cannot tell the cap apart. So probes happen until
 * the cap is learned, or for lists as long as the longest seen ending, not once per partition.
 * What is learned is kept in etl.page_sizes, so every run pages the same way.
 */

export class PageSizes {
  readonly #caps = new Map<string, number>();
  readonly #endings = new Map<string, number>();
  /** Operations learned about since the last `takeChanged`. */
  readonly #changed = new Set<string>();
  /**
   * A replay reads pages as the sync fetched them: a short page that was the last one stored
   * ended the list as far as the sync could tell, so no probe is asked for.
   */
  readonly #replay: boolean;

  constructor(options: { replay?: boolean; known?: readonly PageSizeFacts[] } = {}) {
    this.#replay = options.replay ?? false;
    for (const facts of options.known ?? []) {
      if (facts.cap !== null) this.#caps.set(facts.operation, facts.cap);
      if (facts.ending !== null) this.#endings.set(facts.operation, facts.ending);
    }
  }

  /** The most records the operation serves in one page, once learned. */
  cap(operation: string): number | null {
    return this.#caps.get(operation) ?? null;
  }

  learnCap(operation: string, size: number): void {
    if (size <= (this.#caps.get(operation) ?? 0)) return;
    this.#caps.set(operation, size);
    this.#changed.add(operation);
  }

  /** A short page of `size` records was followed by an empty one: that length ended a list. */
  learnEnding(operation: string, size: number): void {
    if (size <= (this.#endings.get(operation) ?? 0)) return;
    this.#endings.set(operation, size);
    this.#changed.add(operation);
  }

  /** Whether a short page of `size` records may be taken as the end without a probe. */
  knownEnding(operation: string, size: number): boolean {
    return this.#replay || size < (this.#endings.get(operation) ?? 0);
  }

  /** The facts of the operations learned about since the last call, to be kept. */
  takeChanged(): PageSizeFacts[] {
    const facts = [...this.#changed].map((operation) => ({
      operation,
      cap: this.#caps.get(operation) ?? null,
      ending: this.#endings.get(operation) ?? null,
    }));
    this.#changed.clear();
    return facts;
  }
}
