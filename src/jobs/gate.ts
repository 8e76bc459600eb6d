import { errorMessage } from "../errors.js";
import type { Logger } from "../logging/logger.js";

/** What a gate calls when it opens or closes. */
export type GateListener = () => unknown;

/**
 * Something the worker needs and may find away: Postgres and Redis (DependencyGate), the
 * credential (CredentialGate), the upstream (UpstreamOutage, through upstreamGate). While any gate
 * is closed the worker takes no job, and the jobs wait in the queue with their attempts unspent;
 * each gate probes what it guards, backing off while it stays away, and opens once it is back, so
 * work resumes by itself.
 */
export interface Gate {
  /** What it guards, as its log lines name it. */
  readonly name: string;
  readonly open: boolean;
  /** Called when the gate opens and when it closes. */
  on(event: "open" | "close", listener: GateListener): void;
}

/** The listeners of a gate's opening and closing. */
export class GateEvents {
  readonly #gate: string;
  readonly #logger: Logger;
  readonly #listeners: Record<"open" | "close", GateListener[]> = { open: [], close: [] };

  constructor(gate: string, logger: Logger) {
    this.#gate = gate;
    this.#logger = logger;
  }

  on(event: "open" | "close", listener: GateListener): void {
    this.#listeners[event].push(listener);
  }

  /**
   * Calls each listener on its own, after the caller's turn: a listener that throws or rejects is
   * logged, and neither stops the others nor the gate.
   */
  notify(event: "open" | "close"): void {
    for (const listener of this.#listeners[event]) {
      Promise.resolve()
        .then(listener)
        .catch((error: unknown) =>
          this.#logger.error(
            { err: errorMessage(error), gate: this.#gate },
            "a gate listener failed",
          ),
        );
    }
  }
}

/**
 * When a gate probes next: one timer at a time, its waits doubling from a first wait while what
 * the gate guards stays as it is.
 */
export class ProbeTimer {
  #checks = 0;
  readonly #probe: () => void;
  #timer: NodeJS.Timeout | null = null;
  #stopped = false;

  constructor(probe: () => void) {
    this.#probe = probe;
  }

  /** Probes since the last change: how far the backoff has gone. */
  get checks(): number {
    return this.#checks;
  }

  /** A probe was made: the backoff's next wait doubles. */
  probed(): void {
    this.#checks += 1;
  }

  /** The wait of the backoff now: `firstMs` doubled per check, at most `maxMs`. */
  backoffMs(firstMs: number, maxMs: number): number {
    return Math.min(maxMs, firstMs * 2 ** Math.min(this.#checks, 30));
  }

  /** The next probe in `waitMs`, unless one is set already or the timer stopped. */
  after(waitMs: number): void {
    if (this.#stopped || this.#timer) return;
    this.#timer = setTimeout(() => {
      this.#timer = null;
      if (!this.#stopped) this.#probe();
    }, waitMs);
    this.#timer.unref();
  }

  /** A change: the next probe set is dropped and the backoff starts again. */
  reset(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    this.#checks = 0;
  }

  stop(): void {
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
  }
}
