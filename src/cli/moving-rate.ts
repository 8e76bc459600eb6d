/** How far back the rate looks: long enough to smooth a burst, short enough to follow a change. */
const SPAN_MS = 60_000;
/** The shortest span that gives a rate: the first second of a run is no pace to go by. */
const MIN_SPAN_MS = 5_000;

/**
 * A count's rate of growth over the last minute of samples: what a progress line's rate and ETA
 * come from, rather than from the average since the start (a run's first partitions are the
 * quick ones, and a run's pace changes as its streams do).
 */
export class MovingRate {
  readonly #samples: { at: number; count: number }[] = [];

  add(at: number, count: number): void {
    this.#samples.push({ at, count });
    while (this.#samples.length > 2 && at - (this.#samples[1]?.at ?? at) >= SPAN_MS) {
      this.#samples.shift();
    }
  }

  /** Per second; null until the samples span MIN_SPAN_MS. */
  perSecond(): number | null {
    const first = this.#samples[0];
    const last = this.#samples.at(-1);
    if (!first || !last || last.at - first.at < MIN_SPAN_MS) return null;
    return ((last.count - first.count) * 1000) / (last.at - first.at);
  }
}
