import { errorMessage } from "../errors.js";
import type { Logger } from "../logging/logger.js";

/** What a gate calls when it opens or closes. */
export type GateListener = () => unknown;

/**
 * Calls each listener on its own, after the caller's turn: a listener that throws or rejects is
 * logged, and neither stops the others nor the gate.
 */
export function notifyAll(listeners: readonly GateListener[], logger: Logger, gate: string): void {
  for (const listener of listeners) {
    Promise.resolve()
      .then(listener)
      .catch((error: unknown) =>
        logger.error({ err: errorMessage(error), gate }, "a gate listener failed"),
      );
  }
}
