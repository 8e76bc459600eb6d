/** A signal that aborts with any of its parents or at its deadline, until it is closed. */
export interface LinkedAbort {
  readonly signal: AbortSignal;
  /** True once the deadline, not a parent, aborted it. */
  readonly timedOut: boolean;
  abort(reason: unknown): void;
  /** Detaches it from its parents and stops the deadline: call it when the work is done. */
  close(): void;
}

/**
 * Not `AbortSignal.any`: Node keeps every signal made by `AbortSignal.any` from a long-lived
 * parent (the worker's shutdown signal), with the listeners on it, as long as the parent lives
 * (nodejs/node#55351). One per request grew the worker by hundreds of MB over a large backfill.
 */
export function linkedAbort(
  parents: readonly (AbortSignal | undefined)[],
  timeoutMs?: number,
): LinkedAbort {
  const controller = new AbortController();
  let timedOut = false;
  // One listener for every parent, so that close removes it from each.
  const follow = (event: Event) => controller.abort((event.target as AbortSignal).reason);
  for (const parent of parents) {
    if (parent?.aborted) controller.abort(parent.reason);
    else parent?.addEventListener("abort", follow, { once: true });
  }
  const timer =
    timeoutMs === undefined
      ? undefined
      : setTimeout(() => {
          timedOut = true;
          controller.abort(new DOMException("deadline passed", "TimeoutError"));
        }, timeoutMs);
  // Like AbortSignal.timeout: a deadline alone never keeps the process alive.
  timer?.unref();
  return {
    signal: controller.signal,
    get timedOut() {
      return timedOut;
    },
    abort: (reason) => controller.abort(reason),
    close() {
      clearTimeout(timer);
      for (const parent of parents) parent?.removeEventListener("abort", follow);
    },
  };
}
