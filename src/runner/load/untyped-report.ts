import type { Expected, UntypedField, UntypedValue } from "../../api/untyped-values.js";
import { jsonText } from "../../json/json-body.js";

const MAX_EXAMPLES = 3;
const MAX_EXAMPLE_LENGTH = 60;
const MAX_DEPTH = 8;

interface Tally {
  readonly field: string;
  readonly expected: Expected;
  count: number;
  readonly examples: Set<string>;
}

/** Untyped values counted by field and expected type, with a few examples of each. */
class Tallies {
  readonly #byField = new Map<string, Tally>();

  add(field: string, expected: Expected, count: number, examples: Iterable<string>): void {
    const id = `${expected} ${field}`;
    const tally = this.#byField.get(id) ?? { field, expected, count: 0, examples: new Set() };
    tally.count += count;
    for (const example of examples) {
      if (tally.examples.size < MAX_EXAMPLES) tally.examples.add(example);
    }
    this.#byField.set(id, tally);
  }

  get size(): number {
    return this.#byField.size;
  }

  /** Most frequent first. */
  fields(): UntypedField[] {
    return [...this.#byField.values()]
      .map((tally) => ({ ...tally, examples: [...tally.examples] }))
      .sort((a, b) => b.count - a.count || a.field.localeCompare(b.field));
  }
}

/** Places of a page's records already matched to a noted value: node → keys. */
export type Claims = Map<object, Set<string>>;

/**
 * What a partition could not type, by field. The readers that noted the values know only the
 * value, so its field is found again in the records it was read from, where it still sits (typed
 * copies hold null instead). An occurrence is claimed once: two equal values in a page ("n/a" as
 * count and as percentage) are found at their two places, in reading order; a value noted again
 * where every place holding it is claimed was read twice (as a key and as a column), and counts
 * once. Pass one `claims` for every call about the same page.
 */
export class UntypedReport extends Tallies {
  /** Adds the values noted while `records` were read. */
  addNoted(
    noted: readonly UntypedValue[],
    records: readonly unknown[],
    claims: Claims = new Map(),
  ): void {
    for (const { expected, value } of noted) {
      const field = locate(value, records, claims);
      if (field === null && locate(value, records, new Map()) !== null) continue;
      this.add(field ?? "?", expected, 1, [example(value)]);
    }
  }
}

/** Several partitions' reports as one, by field. */
export function mergeUntyped(reports: readonly (readonly UntypedField[])[]): UntypedField[] {
  const tallies = new Tallies();
  for (const entry of reports.flat()) {
    tallies.add(entry.field, entry.expected, entry.count, entry.examples);
  }
  return tallies.fields();
}

function example(value: unknown): string {
  const text = value === undefined ? String(value) : jsonText(value);
  return text.length > MAX_EXAMPLE_LENGTH ? `${text.slice(0, MAX_EXAMPLE_LENGTH - 1)}…` : text;
}

function joinPath(path: string, key: string): string {
  return path === "" ? key : `${path}.${key}`;
}

/**
 * The path of the first unclaimed place `value` sits in `records`, claiming it. A typed record
 * keeps the upstream's object under `raw`, so places there come first (a typed copy may hold the
 * same text under another name) and the path is the upstream's, from inside `raw`.
 */
function locate(value: unknown, records: readonly unknown[], claimed: Claims): string | null {
  const search = (
    node: object,
    path: string,
    depth: number,
    inRaw: boolean,
    rawOnly: boolean,
  ): string | null => {
    const taken = claimed.get(node) ?? new Set<string>();
    for (const [key, child] of Object.entries(node) as [string, unknown][]) {
      const isRaw = !Array.isArray(node) && key === "raw";
      const childPath = isRaw ? "" : Array.isArray(node) ? `${path}[]` : joinPath(path, key);
      if (child === value && !taken.has(key) && (inRaw || !rawOnly)) {
        claimed.set(node, taken.add(key));
        return childPath;
      }
      if (depth < MAX_DEPTH && child !== null && typeof child === "object") {
        const found = search(child, childPath, depth + 1, inRaw || isRaw, rawOnly);
        if (found !== null) return found;
      }
    }
    return null;
  };
  const found = search(records, "", 0, false, true) ?? search(records, "", 0, false, false);
  return found?.replace(/^\[\]\.?/, "") ?? null;
}
