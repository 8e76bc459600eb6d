import { FAULT_KINDS } from "./faults.js";
import type { DriftKnobs, SandboxKnobs } from "./interfaces.js";

export const DEFAULT_KNOBS: SandboxKnobs = {
  requestsPerSecond: null,
  rateLimitHeaders: "retry-after",
  latencyMs: 0,
  faultRate: 0,
  faults: [...FAULT_KINDS],
  slowMs: 30_000,
  down: false,
  listShape: "array",
  royaltiesShape: "wrapped",
  chartsShape: "wrapped",
  drift: {
    extraFields: false,
    numbersAsStrings: false,
    nulls: false,
    renamedEnum: false,
    malformed: false,
  },
  dropFirstPayoutResponse: false,
};

const isNonNegative = (value: unknown) =>
  typeof value === "number" && Number.isFinite(value) && value >= 0;
const isBoolean = (value: unknown) => typeof value === "boolean";
const isOneOf =
  (...allowed: string[]) =>
  (value: unknown) =>
    typeof value === "string" && allowed.includes(value);

// The admin endpoint hands over arbitrary JSON, so every knob is checked at run time.
const CHECKS: Record<Exclude<keyof SandboxKnobs, "drift">, (value: unknown) => boolean> = {
  requestsPerSecond: (value) => value === null || (Number.isInteger(value) && Number(value) >= 1),
  rateLimitHeaders: isOneOf("retry-after", "reset-only"),
  latencyMs: isNonNegative,
  faultRate: (value) => isNonNegative(value) && Number(value) <= 1,
  faults: (value) =>
    Array.isArray(value) && value.every((kind) => (FAULT_KINDS as unknown[]).includes(kind)),
  slowMs: isNonNegative,
  down: isBoolean,
  listShape: isOneOf("array", "object"),
  royaltiesShape: isOneOf("wrapped", "array"),
  chartsShape: isOneOf("wrapped", "array"),
  dropFirstPayoutResponse: isBoolean,
};

const DRIFT_KEYS = Object.keys(DEFAULT_KNOBS.drift) as (keyof DriftKnobs)[];

/** The knobs with `patch` applied (drift merges field by field); throws on an invalid patch. */
export function mergeKnobs(current: SandboxKnobs, patch: unknown): SandboxKnobs {
  if (typeof patch !== "object" || patch === null || Array.isArray(patch)) {
    throw new Error("knobs must be a JSON object");
  }
  const next: SandboxKnobs = { ...current, drift: { ...current.drift } };
  for (const [key, value] of Object.entries(patch) as [string, unknown][]) {
    if (key === "drift") {
      next.drift = mergeDrift(next.drift, value);
    } else if (key in CHECKS) {
      const knob = key as keyof typeof CHECKS;
      if (!CHECKS[knob](value)) throw new Error(`invalid value for knob ${key}`);
      Object.assign(next, { [knob]: Array.isArray(value) ? [...(value as unknown[])] : value });
    } else {
      throw new Error(`unknown knob ${key}`);
    }
  }
  return next;
}

function mergeDrift(current: DriftKnobs, patch: unknown): DriftKnobs {
  if (typeof patch !== "object" || patch === null) throw new Error("drift must be an object");
  const next = { ...current };
  for (const [key, value] of Object.entries(patch) as [string, unknown][]) {
    if (!(DRIFT_KEYS as string[]).includes(key)) throw new Error(`unknown drift knob ${key}`);
    if (typeof value !== "boolean") throw new Error(`drift.${key} must be a boolean`);
    next[key as keyof DriftKnobs] = value;
  }
  return next;
}
