// Upstreams built on PHP frameworks often answer a failure with 200 and a body that says so.
// shapes.failureEnvelopeRate replaces a share of GET answers with such bodies, drawn like faults.
import type { SandboxKnobs } from "./interfaces.js";
import type { Rng } from "./prng.js";

/** The failure bodies seen from independently written upstreams of the same spec. */
export const FAILURE_ENVELOPES: readonly Readonly<Record<string, unknown>>[] = [
  { status: false, message: "Something went wrong, please try again later." },
  { status: false, message: "The request could not be processed.", type: 2 },
  { success: false, error: "Upstream provider did not answer in time." },
  { error: "Service temporarily unavailable" },
  { errors: [{ message: "Internal error while reading the data." }] },
  { status: "error", message: "Database connection lost." },
];

/**
 * The failure body this request gets instead of its answer, or null. Only GET requests: a write
 * that said "failed" after it happened would be a different habit. Draws nothing at rate 0, so
 * the sequence of other draws is the same with the knob off.
 */
export function drawFailureEnvelope(
  rng: Rng,
  knobs: SandboxKnobs,
  method: string,
): Readonly<Record<string, unknown>> | null {
  const rate = knobs.shapes.failureEnvelopeRate;
  if (method !== "GET" || rate === 0 || !rng.chance(rate)) return null;
  return rng.pick(FAILURE_ENVELOPES);
}
