import type { ConfigProblem } from "../errors.js";
import { fieldName } from "./zod-problems.js";

// eslint-disable-next-line no-control-regex -- control characters are what is looked for
const CONTROL = /[\u0000-\u001f\u007f]/;

/**
 * Every string of a config file (keys too) holding a control character, NUL included: such a value
 * becomes a request's path or parameter, where it is a different request, or none.
 */
export function controlCharacterProblems(
  value: unknown,
  path: readonly PropertyKey[] = [],
): ConfigProblem[] {
  if (typeof value === "string") {
    return CONTROL.test(value)
      ? [{ field: fieldName(path) || "(file)", problem: "holds a control character" }]
      : [];
  }
  if (value === null || typeof value !== "object") return [];
  return Object.entries(value).flatMap(([key, child]) => {
    const at = [...path, Array.isArray(value) ? Number(key) : key];
    const keyProblem = CONTROL.test(key)
      ? [{ field: fieldName(at), problem: "is a key holding a control character" }]
      : [];
    return [...keyProblem, ...controlCharacterProblems(child, at)];
  });
}
