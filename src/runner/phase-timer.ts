/** Milliseconds a partition spent in each phase of the pipeline. */
export interface PhaseTimings {
  /** Waiting for pages: the request budget, the network, the upstream, parsing the JSON. */
  readonly fetchMs: number;
  /** Turning records into rows (typing, keys, dedupe checks): the runner's own CPU. */
  readonly normaliseMs: number;
  /** Writing rows, deletions and the checkpoint to Postgres. */
  readonly writeMs: number;
}

type Phase = "fetch" | "normalise" | "write";

/** Adds up wall time per phase; phases of one partition never overlap. */
export class PhaseTimer {
  readonly #ms: Record<Phase, number> = { fetch: 0, normalise: 0, write: 0 };

  async time<T>(phase: Phase, task: () => Promise<T>): Promise<T> {
    const started = performance.now();
    try {
      return await task();
    } finally {
      this.#ms[phase] += performance.now() - started;
    }
  }

  timeSync<T>(phase: Phase, task: () => T): T {
    const started = performance.now();
    try {
      return task();
    } finally {
      this.#ms[phase] += performance.now() - started;
    }
  }

  timings(): PhaseTimings {
    return {
      fetchMs: Math.round(this.#ms.fetch),
      normaliseMs: Math.round(this.#ms.normalise),
      writeMs: Math.round(this.#ms.write),
    };
  }
}
