import type { z } from "zod";
import type { ConfigProblem } from "../errors.js";

function fieldName(path: readonly PropertyKey[]): string {
  return path
    .map((part, i) =>
      typeof part === "number" ? `[${part}]` : `${i > 0 ? "." : ""}${String(part)}`,
    )
    .join("");
}

function shown(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/**
 * One problem per zod issue, named by its field. `showInput` adds the offending value; it is off
 * for the environment, whose values may be credentials or URLs with passwords.
 */
export function toConfigProblems(error: z.ZodError, showInput: boolean): ConfigProblem[] {
  return error.issues.flatMap((issue): ConfigProblem[] => {
    if (issue.code === "unrecognized_keys") {
      return issue.keys.map((key) => ({
        field: fieldName([...issue.path, key]),
        problem: "is not a known key (see the configuration reference in README.md)",
      }));
    }
    const got = showInput && issue.input !== undefined ? ` (got ${shown(issue.input)})` : "";
    const problem =
      issue.input === undefined && issue.code === "invalid_type" ? "is required" : issue.message;
    return [{ field: fieldName(issue.path) || "(file)", problem: `${problem}${got}` }];
  });
}
