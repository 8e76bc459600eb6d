import { CREDENTIAL_ECHO_STATUSES } from "./credential-echo.js";
import { ENDPOINT_MODULES } from "./endpoint-modules.js";
import { FAULT_KINDS } from "./faults.js";
import type { DriftKnobs, SandboxKnobs, ShapeKnobs } from "./interfaces.js";

export const DEFAULT_KNOBS: SandboxKnobs = {
  requestsPerSecond: null,
  rateLimitHeaders: "retry-after",
  rateLimitWindow: "second",
  latencyMs: 0,
  faultRate: 0,
  faults: [...FAULT_KINDS],
  slowMs: 30_000,
  down: false,
  refuseCredential: false,
  echoCredential: null,
  listShape: "array",
  royaltiesShape: "wrapped",
  chartsShape: "wrapped",
  drift: {
    extraFields: false,
    numbersAsStrings: false,
    nulls: false,
    renamedEnum: false,
    malformed: false,
    hostile: false,
  },
  shapes: {
    otherShapes: [],
    pageCap: null,
    royaltiesPaging: "none",
    royaltiesPageSize: 10,
    foreignNextLink: null,
    wrappedObjects: false,
    incomesWithoutIds: false,
    statPoints: "timestp",
    revision: 0,
    failureEnvelopeRate: 0,
    moneyDecimals: 2,
    booleans: "json",
    datetimes: "iso",
    namedObjects: false,
    listSnapshots: false,
    phpEmpty: false,
    renamedFields: false,
    emptyCases: false,
    charset: "utf-8",
  },
  dropFirstPayoutResponse: false,
  chunkedBodies: false,
  shortListDays: [],
};

const isNonNegative = (value: unknown) =>
  typeof value === "number" && Number.isFinite(value) && value >= 0;
const isDay = (value: string) => /^\d{4}-\d{2}-\d{2}$/.test(value);
const isBoolean = (value: unknown) => typeof value === "boolean";
const isOneOf =
  (...allowed: string[]) =>
  (value: unknown) =>
    typeof value === "string" && allowed.includes(value);

// The admin endpoint hands over arbitrary JSON, so every knob is checked at run time.
const isPositiveInteger = (value: unknown) => Number.isSafeInteger(value) && Number(value) >= 1;

/** An http(s) origin such as "http://evil.example:8080" (a path, query or credentials refused). */
function isOrigin(value: unknown): boolean {
  if (typeof value !== "string") return false;
  try {
    const url = new URL(value);
    return (
      (url.protocol === "http:" || url.protocol === "https:") &&
      url.pathname === "/" &&
      url.search === "" &&
      url.hash === "" &&
      url.username === "" &&
      url.password === "" &&
      !value.includes("?") &&
      !value.includes("#")
    );
  } catch {
    return false;
  }
}

const CHECKS: Record<
  Exclude<keyof SandboxKnobs, "drift" | "shapes">,
  (value: unknown) => boolean
> = {
  requestsPerSecond: (value) => value === null || (Number.isInteger(value) && Number(value) >= 1),
  rateLimitHeaders: isOneOf("retry-after", "reset-only", "on-429", "retry-after-only", "none"),
  rateLimitWindow: isOneOf("second", "sliding", "bucket"),
  latencyMs: isNonNegative,
  faultRate: (value) => isNonNegative(value) && Number(value) <= 1,
  faults: (value) =>
    Array.isArray(value) && value.every((kind) => (FAULT_KINDS as unknown[]).includes(kind)),
  slowMs: isNonNegative,
  down: isBoolean,
  refuseCredential: isBoolean,
  echoCredential: (value) => value === null || CREDENTIAL_ECHO_STATUSES.includes(value as never),
  listShape: isOneOf("array", "object"),
  royaltiesShape: isOneOf("wrapped", "array"),
  chartsShape: isOneOf("wrapped", "array"),
  dropFirstPayoutResponse: isBoolean,
  chunkedBodies: isBoolean,
  shortListDays: (value) =>
    Array.isArray(value) && value.every((day) => typeof day === "string" && isDay(day)),
};

const SHAPE_CHECKS: Record<keyof ShapeKnobs, (value: unknown) => boolean> = {
  otherShapes: (value) =>
    Array.isArray(value) &&
    value.every(
      (name) => typeof name === "string" && ENDPOINT_MODULES.get(name)?.otherShape !== undefined,
    ),
  pageCap: (value) => value === null || isPositiveInteger(value),
  royaltiesPaging: isOneOf("none", "page-number", "next-link", "laravel"),
  royaltiesPageSize: isPositiveInteger,
  foreignNextLink: (value) => value === null || isOrigin(value),
  wrappedObjects: isBoolean,
  incomesWithoutIds: isBoolean,
  statPoints: isOneOf("timestp", "date-field", "pairs", "metric-rows"),
  revision: (value) => Number.isSafeInteger(value) && Number(value) >= 0,
  failureEnvelopeRate: (value) => isNonNegative(value) && Number(value) <= 1,
  moneyDecimals: (value) => value === 2 || value === 4,
  booleans: isOneOf("json", "mixed"),
  datetimes: isOneOf("iso", "sql"),
  namedObjects: isBoolean,
  listSnapshots: isBoolean,
  phpEmpty: isBoolean,
  renamedFields: isBoolean,
  emptyCases: isBoolean,
  charset: isOneOf("utf-8", "iso-8859-1", "mislabelled"),
};

const DRIFT_KEYS = Object.keys(DEFAULT_KNOBS.drift) as (keyof DriftKnobs)[];

/** The knobs with `patch` applied (drift and shapes merge field by field); throws on an invalid patch. */
export function mergeKnobs(current: SandboxKnobs, patch: unknown): SandboxKnobs {
  if (typeof patch !== "object" || patch === null || Array.isArray(patch)) {
    throw new Error("knobs must be a JSON object");
  }
  const next: SandboxKnobs = {
    ...current,
    drift: { ...current.drift },
    shapes: { ...current.shapes },
  };
  for (const [key, value] of Object.entries(patch) as [string, unknown][]) {
    if (key === "drift") {
      next.drift = mergeDrift(next.drift, value);
    } else if (key === "shapes") {
      next.shapes = mergeShapes(next.shapes, value);
    } else if (Object.hasOwn(CHECKS, key)) {
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

function mergeShapes(current: ShapeKnobs, patch: unknown): ShapeKnobs {
  if (typeof patch !== "object" || patch === null || Array.isArray(patch)) {
    throw new Error("shapes must be an object");
  }
  const next = { ...current };
  for (const [key, value] of Object.entries(patch) as [string, unknown][]) {
    if (!Object.hasOwn(SHAPE_CHECKS, key)) throw new Error(`unknown shapes knob ${key}`);
    const knob = key as keyof ShapeKnobs;
    if (!SHAPE_CHECKS[knob](value)) throw new Error(`invalid value for knob shapes.${key}`);
    Object.assign(next, {
      [knob]:
        knob === "foreignNextLink" && value !== null
          ? new URL(value as string).origin
          : Array.isArray(value)
            ? [...(value as unknown[])]
            : value,
    });
  }
  return next;
}
