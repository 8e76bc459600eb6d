import type { z } from "zod";
import type { ConfigProblem } from "../errors.js";
import { didYouMean } from "../similar-names.js";

/** A field as the config file names it: `charts[0].country_code`. */
export function fieldName(path: readonly PropertyKey[]): string {
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

/** What a schema's definition shows of itself: enough to walk to an object's keys. */
interface SchemaDef {
  readonly type: string;
  readonly shape?: Record<string, z.ZodType>;
  readonly innerType?: z.ZodType;
  readonly in?: z.ZodType;
  readonly valueType?: z.ZodType;
  readonly element?: z.ZodType;
}

const defOf = (schema: z.ZodType) => (schema as unknown as { _zod: { def: SchemaDef } })._zod.def;

/** The keys the object that `schema` expects at `path` knows; none when it is not one. */
function keysAt(schema: z.ZodType | undefined, path: readonly PropertyKey[]): string[] {
  if (schema === undefined) return [];
  const def = defOf(schema);
  // Wrappers (optional, default, a transform's input...) are looked through.
  const inner = def.innerType ?? def.in;
  if (inner) return keysAt(inner, path);
  const [head, ...rest] = path;
  if (head === undefined) return def.type === "object" ? Object.keys(def.shape ?? {}) : [];
  if (def.type === "object") return keysAt(def.shape?.[String(head)], rest);
  return keysAt(def.valueType ?? def.element, rest);
}

/**
 * One problem per zod issue, named by its field. `showInput` adds the offending value; it is off
 * for the environment, whose values may be credentials or URLs with passwords. An unknown key of
 * `schema` is given the known keys nearest it.
 */
export function toConfigProblems(
  error: z.ZodError,
  showInput: boolean,
  schema?: z.ZodType,
): ConfigProblem[] {
  return error.issues.flatMap((issue): ConfigProblem[] => {
    if (issue.code === "unrecognized_keys") {
      const known = keysAt(schema, issue.path);
      return issue.keys.map((key) => ({
        field: fieldName([...issue.path, key]),
        problem: `is not a known key${didYouMean(key, known)} (see docs/configuration.md)`,
      }));
    }
    const got = showInput && issue.input !== undefined ? ` (got ${shown(issue.input)})` : "";
    const problem =
      issue.input === undefined && issue.code === "invalid_type" ? "is required" : issue.message;
    return [{ field: fieldName(issue.path) || "(file)", problem: `${problem}${got}` }];
  });
}
