/**
 * How long a test, a hook or a wait on a condition may take before it is taken for hung. No test
 * measures time: a busy machine makes the suite slower, never red, so this is far past what the
 * slowest test needs on a loaded machine, and only ends one that would otherwise never end.
 */
export const HANG_MS = 10 * 60_000;
