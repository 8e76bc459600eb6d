import { createHash } from "node:crypto";

/** Postgres keeps the first 63 bytes of a name. */
const MAX_NAME_BYTES = 63;
/** Joins a field of an object to its parent's name: `photo__mime_type`. */
const NESTING = "__";

/** Latin letters that decompose into no base letter, as they are usually written in ASCII. */
const LETTERS: Readonly<Record<string, string>> = {
  ø: "o",
  Ø: "O",
  ß: "ss",
  æ: "ae",
  Æ: "AE",
  œ: "oe",
  Œ: "OE",
  ł: "l",
  Ł: "L",
  đ: "d",
  Đ: "D",
};

/**
 * A field's name as a column's, the way dlt's snake_case convention writes it: letters
 * decomposed and their marks dropped (`Zoë` → `zoe`, `ø` → `o`), camelCase broken (`mimeType` →
 * `mime_type`), lower case, every run of other characters one `_` (so `__` stays the nesting
 * mark), no `_` at either end, and `_` before a leading digit. Nothing left: `field`.
 */
export function snakeCase(name: string): string {
  const snake = name
    .replace(/[øØßæÆœŒłŁđĐ]/g, (letter) => LETTERS[letter] ?? letter)
    .normalize("NFKD")
    .replace(/\p{M}+/gu, "")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1_$2")
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "");
  if (snake === "") return "field";
  return /^\d/.test(snake) ? `_${snake}` : snake;
}

/** A short, stable mark of a field's path, to tell apart names that would be the same. */
function pathMark(path: readonly string[], length: number): string {
  return createHash("sha1").update(path.join("\u0000")).digest("hex").slice(0, length);
}

/**
 * A name made for the field at `path`, cut to Postgres's 63 bytes with a mark of the path where
 * longer (a longer name would be cut by Postgres itself, and two fields could share what is left).
 * The names are snake case, ASCII only, so a character is a byte.
 */
export function fittedName(name: string, path: readonly string[]): string {
  if (Buffer.byteLength(name) <= MAX_NAME_BYTES) return name;
  return `${name.slice(0, MAX_NAME_BYTES - 9)}_${pathMark(path, 8)}`;
}

/** A field's path's names in snake case joined by `__`, before any cut. */
export function joinedName(path: readonly string[]): string {
  return path.map(snakeCase).join(NESTING);
}

/**
 * The column of a field at `path` (one name, or an object's name and its field's): its names in
 * snake case joined by `__`, fitted to Postgres's 63 bytes.
 */
export function columnNameOf(path: readonly string[]): string {
  return fittedName(joinedName(path), path);
}

/** `name` with `_<n>` at its end, cut first where that would pass Postgres's 63 bytes. */
export function numberedName(name: string, n: number): string {
  const suffix = `_${n}`;
  return `${name.slice(0, MAX_NAME_BYTES - suffix.length).replace(/_+$/, "")}${suffix}`;
}
