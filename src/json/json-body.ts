import { randomBytes } from "node:crypto";
import {
  BACKSLASH,
  CLOSE_ARRAY,
  CLOSE_OBJECT,
  OPEN_ARRAY,
  OPEN_OBJECT,
  QUOTE,
} from "./json-chars.js";

/**
 * A JSON number whose text a double would not give back: more digits than a double holds
 * ("1234567890.123456789"), trailing zeros ("12.3400"), an exponent ("1E3"). Kept as its text so
 * that a value is never narrowed on its way in: a numeric column stores it as sent, and `raw`
 * holds the number it was. Every other number stays a JavaScript number.
 */
export class JsonDecimal {
  constructor(readonly text: string) {}

  /**
   * Marks the text inside whatever JSON.stringify writes, for `jsonText` to turn back into a
   * number. A mark that reached Postgres unconverted would be refused there (jsonb takes no NUL),
   * never stored as a string.
   */
  toJSON(): string {
    return `${MARK}${this.text}`;
  }
}

const MARK = "\u0000json-decimal:";
const MARKED = /"\\u0000json-decimal:([^"]*)"/g;

/** Text JSON.stringify writes for a value, with every JsonDecimal written as the number it was. */
export function jsonText(value: unknown): string {
  const text = JSON.stringify(value) ?? "null";
  return text.includes("\\u0000json-decimal:") ? text.replace(MARKED, "$1") : text;
}

/**
 * A part of a body nested deeper than MAX_JSON_DEPTH, kept as the text it was sent as (and stored
 * as that text, a JSON string): Postgres parses jsonb recursively and refuses such depth, and
 * JSON.stringify overflows the stack on it, so a record holding one would fail its partition.
 */
export class DeepJson {
  constructor(readonly text: string) {}

  toJSON(): string {
    return this.text;
  }
}

/** See DeepJson. Records the spec shows nest a handful of levels. */
export const MAX_JSON_DEPTH = 256;

/** Whether a number's text is what a double gives back: JSON.parse then loses nothing. */
function exactAsDouble(text: string): boolean {
  return String(Number(text)) === text;
}

/** Where the string opened at `at` ends (just past its closing quote). */
function stringEnd(text: string, at: number): number {
  let close = text.indexOf('"', at + 1);
  for (;;) {
    let slashes = 0;
    while (text.charCodeAt(close - 1 - slashes) === BACKSLASH) slashes += 1;
    if (slashes % 2 === 0) return close + 1;
    close = text.indexOf('"', close + 1);
  }
}

/** A stretch of a body that JSON.parse would not give back as sent, and what to give instead. */
interface Replacement {
  readonly start: number;
  readonly end: number;
  readonly value: JsonDecimal | DeepJson;
}

/**
 * The stretches of valid JSON `text` (a part of a body `outerDepth` containers deep) that
 * JSON.parse would change: numbers a double would change, parts nested deeper than
 * MAX_JSON_DEPTH. One pass: strings are skipped natively (indexOf), and
 * only a number with a fraction ending in 0, an exponent, 16 or more characters or a negative
 * zero is looked at twice. Most bodies hold none.
 */
function replacements(text: string, outerDepth: number): Replacement[] {
  const found: Replacement[] = [];
  const length = text.length;
  let depth = outerDepth;
  let deepFrom = -1;
  for (let at = 0; at < length;) {
    const code = text.charCodeAt(at);
    if (code === QUOTE) {
      at = stringEnd(text, at);
      continue;
    }
    if (code === OPEN_ARRAY || code === OPEN_OBJECT) {
      depth += 1;
      if (depth === MAX_JSON_DEPTH + 1) deepFrom = at;
    } else if (code === CLOSE_ARRAY || code === CLOSE_OBJECT) {
      if (depth === MAX_JSON_DEPTH + 1) {
        found.push({
          start: deepFrom,
          end: at + 1,
          value: new DeepJson(text.slice(deepFrom, at + 1)),
        });
      }
      depth -= 1;
    }
    if ((code < 48 || code > 57) && code !== 45) {
      at += 1;
      continue;
    }
    let end = at + 1;
    let suspect = false;
    let fraction = false;
    for (; end < length; end += 1) {
      const next = text.charCodeAt(end);
      if (next === 46) fraction = true;
      else if ((next | 32) === 101) suspect = true;
      else if ((next < 48 || next > 57) && next !== 43 && next !== 45) break;
    }
    const last = text.charCodeAt(end - 1);
    suspect ||=
      end - at >= 16 || (fraction && last === 48) || (code === 45 && end - at === 2 && last === 48);
    if (suspect && depth <= MAX_JSON_DEPTH) {
      const number = text.slice(at, end);
      if (!exactAsDouble(number)) found.push({ start: at, end, value: new JsonDecimal(number) });
    }
    at = end;
  }
  return found;
}

/**
 * Stands in a body's text for a replacement, as a string no upstream can send: it starts with a
 * NUL and a key drawn when the process starts.
 */
const PLACEHOLDER = `\\u0000${randomBytes(8).toString("hex")}:`;
const PLACEHOLDER_VALUE = JSON.parse(`"${PLACEHOLDER}"`) as string;

/** The body parsed with each replacement in its place. */
function parseReplacing(text: string, found: readonly Replacement[]): unknown {
  let marked = "";
  let from = 0;
  for (const [i, { start, end }] of found.entries()) {
    marked += `${text.slice(from, start)}"${PLACEHOLDER}${i}"`;
    from = end;
  }
  const parsed: unknown = JSON.parse(marked + text.slice(from));
  const take = (value: unknown): unknown =>
    typeof value === "string" && value.startsWith(PLACEHOLDER_VALUE)
      ? found[Number(value.slice(PLACEHOLDER_VALUE.length))]?.value
      : value;
  // Without recursion: the placeholders sit at most MAX_JSON_DEPTH deep, but the walk need not
  // know that to be safe.
  const open: object[] = [];
  const root = take(parsed);
  if (root !== null && typeof root === "object") open.push(root);
  for (let node = open.pop(); node !== undefined; node = open.pop()) {
    const record = node as Record<string, unknown>;
    for (const key of Object.keys(record)) {
      const child = take(record[key]);
      record[key] = child;
      if (
        child !== null &&
        typeof child === "object" &&
        !(child instanceof JsonDecimal) &&
        !(child instanceof DeepJson)
      ) {
        open.push(child);
      }
    }
  }
  return root;
}

/**
 * A response body as JSON, every number exactly as sent (see JsonDecimal) and every part nested
 * too deep for the warehouse as its text (see DeepJson); an empty body is null. Throws a
 * SyntaxError as JSON.parse does for a text that is not JSON.
 */
export function parseJsonBody(text: string): unknown {
  return text.trim() === "" ? null : parseJsonText(text, 0);
}

/** A part of a body, `depth` containers deep in it, read as parseJsonBody reads a body. */
export function parseJsonText(text: string, depth: number): unknown {
  const parsed: unknown = JSON.parse(text);
  const found = replacements(text, depth);
  return found.length === 0 ? parsed : parseReplacing(text, found);
}
