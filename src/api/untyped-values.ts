import { AsyncLocalStorage } from "node:async_hooks";

/** What a tolerant reader expected of a value it could not type. */
export type Expected =
  | "number"
  | "integer"
  | "money"
  | "text"
  | "day"
  | "instant"
  | "boolean"
  /** A JSON value kept with what Postgres cannot hold replaced (see storableJson). */
  | "json";

/** One value the upstream sent that a typed column could not hold (it stays in the raw JSON). */
export interface UntypedValue {
  readonly expected: Expected;
  readonly value: unknown;
}

/** One field of a partition's records that could not be typed: how often, and what came. */
export interface UntypedField {
  /** Where the value sits in a record ("stats[].value"), or "?" when it could not be found. */
  readonly field: string;
  readonly expected: Expected;
  readonly count: number;
  /** Up to three distinct values as received, as JSON text cut to 60 characters. */
  readonly examples: readonly string[];
}

const collectors = new AsyncLocalStorage<UntypedValue[]>();

/**
 * Notes `value` as untyped for the partition being synced, when there is one and the value was
 * really something (absent and empty values are just missing, not drift). Returns null, which is
 * what the reader gives its caller.
 */
export function untyped(expected: Expected, value: unknown): null {
  if (value === null || value === undefined || value === "") return null;
  collectors.getStore()?.push({ expected, value });
  return null;
}

/**
 * Runs `task` noting into `noted` every value its readers could not type. Only failures reach the
 * store, so the well-typed path costs nothing.
 */
export function collectUntyped<T>(noted: UntypedValue[], task: () => Promise<T>): Promise<T> {
  return collectors.run(noted, task);
}

/** Runs `task` with what its readers could not type noted nowhere (a second look at a record). */
export function notingNothing<T>(task: () => T): T {
  return collectors.run([], task);
}
