/** What a long command listens to for a stop: the first SIGTERM or SIGINT. */
export interface StopSignal {
  /** Aborted when the first signal arrives. */
  readonly signal: AbortSignal;
  /** Resolves with the signal's name. */
  readonly received: Promise<NodeJS.Signals>;
  /** Stops listening: a later signal ends the process the default way. */
  dispose(): void;
}

/**
 * Listens for SIGTERM and SIGINT (a deploy, Ctrl-C). Only the first is handled: the command
 * stops what it runs and records it; a second one ends the process at once, as without this.
 */
export function listenForStop(): StopSignal {
  const controller = new AbortController();
  let settle!: (name: NodeJS.Signals) => void;
  const received = new Promise<NodeJS.Signals>((resolve) => {
    settle = resolve;
  });
  const onSignal = (name: NodeJS.Signals) => {
    dispose();
    controller.abort(new Error(`stopped by ${name}`));
    settle(name);
  };
  function dispose() {
    process.off("SIGTERM", onSignal);
    process.off("SIGINT", onSignal);
  }
  process.once("SIGTERM", onSignal);
  process.once("SIGINT", onSignal);
  return { signal: controller.signal, received, dispose };
}
