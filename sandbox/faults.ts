import type { FaultKind, SandboxKnobs } from "./interfaces.js";
import type { Rng } from "./prng.js";

export const FAULT_KINDS: readonly FaultKind[] = [
  "html503",
  "error500",
  "reset",
  "truncated",
  "slow",
];

export const HTML_503_BODY =
  "<!DOCTYPE html>\n<html><head><title>503 Service Unavailable</title></head>" +
  "<body><h1>503 Service Unavailable</h1><p>The server is temporarily unable to service your " +
  "request.</p></body></html>\n";

/** The fault this request gets, if any: faultRate decides whether, then a uniform pick. */
export function drawFault(rng: Rng, knobs: SandboxKnobs): FaultKind | null {
  if (knobs.faults.length === 0 || !rng.chance(knobs.faultRate)) return null;
  return rng.pick(knobs.faults);
}

/** The first half of a body, so it parses as neither complete JSON nor an error page. */
export function truncate(body: string): string {
  return body.slice(0, Math.floor(body.length / 2));
}
