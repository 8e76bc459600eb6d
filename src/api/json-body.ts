import { parse as parseLossless } from "lossless-json";

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

/** Whether a number's text is what a double gives back: JSON.parse then loses nothing. */
function exactAsDouble(text: string): boolean {
  return String(Number(text)) === text;
}

const QUOTE = 34;
const BACKSLASH = 92;

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

/**
 * Whether the text holds a number a double would change. One pass: strings are skipped natively
 * (indexOf), and only a number with a fraction ending in 0, an exponent, 16 or more characters or
 * a negative zero is looked at twice. Most bodies hold none, and only those that do are parsed
 * the slow, lossless way.
 */
function holdsInexactNumber(text: string): boolean {
  const length = text.length;
  for (let at = 0; at < length;) {
    const code = text.charCodeAt(at);
    if (code === QUOTE) {
      at = stringEnd(text, at);
      continue;
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
    if (suspect && !exactAsDouble(text.slice(at, end))) return true;
    at = end;
  }
  return false;
}

const number = (text: string): number | JsonDecimal =>
  exactAsDouble(text) ? Number(text) : new JsonDecimal(text);

/**
 * A response body as JSON, every number exactly as sent (see JsonDecimal); an empty body is null.
 * Throws a SyntaxError as JSON.parse does for a text that is not JSON.
 */
export function parseJsonBody(text: string): unknown {
  if (text.trim() === "") return null;
  const parsed: unknown = JSON.parse(text);
  return holdsInexactNumber(text) ? parseLossless(text, null, number) : parsed;
}
