import { parseJsonBody, parseJsonText } from "./json-body.js";
import {
  BACKSLASH,
  CLOSE_ARRAY,
  CLOSE_OBJECT,
  COLON,
  COMMA,
  OPEN_ARRAY,
  OPEN_OBJECT,
  QUOTE,
} from "./json-chars.js";

/**
 * A container larger than this is built child by child, each child parsed from a text of its
 * own. A whole body as text costs two bytes a character in V8 once one character is beyond
 * U+00FF, held beside everything it parses into: pieces keep that to a piece's size.
 */
export const PIECE_BYTES = 256 * 1024;

/** Below this depth a large container is taken apart; deeper, Postgres keeps no structure anyway. */
const MAX_SPLIT_DEPTH = 32;

const isSpace = (byte: number | undefined) =>
  byte === 32 || byte === 10 || byte === 13 || byte === 9;

function unexpected(bytes: Buffer, at: number): SyntaxError {
  return new SyntaxError(
    at >= bytes.length
      ? "Unexpected end of JSON input"
      : `Unexpected token '${String.fromCharCode(bytes[at] ?? 0)}' in JSON at position ${at}`,
  );
}

function skipSpace(bytes: Buffer, at: number): number {
  while (isSpace(bytes[at])) at += 1;
  return at;
}

/** Just past the closing quote of the string opened at `at`. */
function stringEnd(bytes: Buffer, at: number): number {
  let close = bytes.indexOf(QUOTE, at + 1);
  for (;;) {
    if (close < 0) throw unexpected(bytes, bytes.length);
    let slashes = 0;
    while (bytes[close - 1 - slashes] === BACKSLASH) slashes += 1;
    if (slashes % 2 === 0) return close + 1;
    close = bytes.indexOf(QUOTE, close + 1);
  }
}

/**
 * Just past the value that starts at `at`: a string or a container by its closing byte (strings
 * inside skipped natively), anything else up to the byte that ends it. Only the extent: the
 * value's own text is checked when it is parsed.
 */
function valueEnd(bytes: Buffer, at: number): number {
  const first = bytes[at];
  if (first === QUOTE) return stringEnd(bytes, at);
  if (first === OPEN_ARRAY || first === OPEN_OBJECT) {
    let depth = 0;
    for (let i = at; i < bytes.length;) {
      const byte = bytes[i];
      if (byte === QUOTE) {
        i = stringEnd(bytes, i);
        continue;
      }
      if (byte === OPEN_ARRAY || byte === OPEN_OBJECT) depth += 1;
      else if ((byte === CLOSE_ARRAY || byte === CLOSE_OBJECT) && --depth === 0) return i + 1;
      i += 1;
    }
    throw unexpected(bytes, bytes.length);
  }
  let end = at;
  while (end < bytes.length) {
    const byte = bytes[end];
    if (byte === COMMA || byte === CLOSE_ARRAY || byte === CLOSE_OBJECT || isSpace(byte)) break;
    end += 1;
  }
  if (end === at) throw unexpected(bytes, at);
  return end;
}

/** An own property, as JSON.parse makes it: `__proto__` too is a key, never the prototype. */
function setKey(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === "__proto__") {
    Object.defineProperty(target, key, {
      value,
      writable: true,
      enumerable: true,
      configurable: true,
    });
  } else {
    target[key] = value;
  }
}

/**
 * The value in bytes[start, end) (no space around it), `depth` containers deep. A large
 * container is taken apart here; everything else is parsed from its own text.
 */
function parseValue(bytes: Buffer, start: number, end: number, depth: number): unknown {
  const open = bytes[start];
  const container = open === OPEN_ARRAY || open === OPEN_OBJECT;
  if (!container || end - start <= PIECE_BYTES || depth >= MAX_SPLIT_DEPTH) {
    return parseJsonText(bytes.toString("utf8", start, end), depth);
  }
  const isArray = open === OPEN_ARRAY;
  const close = isArray ? CLOSE_ARRAY : CLOSE_OBJECT;
  const items: unknown[] = [];
  const record: Record<string, unknown> = {};
  let at = skipSpace(bytes, start + 1);
  if (bytes[at] === close) at += 1;
  else {
    for (;;) {
      let key = "";
      if (!isArray) {
        if (bytes[at] !== QUOTE) throw unexpected(bytes, at);
        const keyEnd = stringEnd(bytes, at);
        key = JSON.parse(bytes.toString("utf8", at, keyEnd)) as string;
        at = skipSpace(bytes, keyEnd);
        if (bytes[at] !== COLON) throw unexpected(bytes, at);
        at = skipSpace(bytes, at + 1);
      }
      const childEnd = valueEnd(bytes, at);
      const child = parseValue(bytes, at, childEnd, depth + 1);
      if (isArray) items.push(child);
      else setKey(record, key, child);
      at = skipSpace(bytes, childEnd);
      if (bytes[at] === COMMA) {
        at = skipSpace(bytes, at + 1);
        continue;
      }
      if (bytes[at] !== close) throw unexpected(bytes, at);
      at += 1;
      break;
    }
  }
  if (at !== end) throw unexpected(bytes, at);
  return isArray ? items : record;
}

/**
 * A body as JSON from its UTF-8 bytes, exactly as parseJsonBody reads its text (numbers as sent,
 * depth kept within bounds, an empty body null, a SyntaxError for what is not JSON), without
 * ever holding a large body's whole text: its large containers are parsed a child at a time.
 */
export function parseJsonBytes(bytes: Buffer): unknown {
  if (bytes.length <= PIECE_BYTES) return parseJsonBody(bytes.toString());
  const start = skipSpace(bytes, 0);
  if (start === bytes.length) return null;
  const end = valueEnd(bytes, start);
  if (skipSpace(bytes, end) !== bytes.length) throw unexpected(bytes, skipSpace(bytes, end));
  return parseValue(bytes, start, end, 0);
}
