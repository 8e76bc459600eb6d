import { createHash } from "node:crypto";

/** Records stringified at a time for a page's digest. */
const DIGEST_RECORDS = 1_000;

/**
 * A digest of a page's records: equal exactly when JSON.stringify of the records is (but for a
 * collision of SHA-256), yet computed a thousand records at a time, so a page is never held as one
 * more string. That string was kept until the next page: on a large answer about twice the body.
 */
function recordsDigest(records: readonly unknown[]): string {
  const hash = createHash("sha256");
  for (let start = 0; start < records.length; start += DIGEST_RECORDS) {
    hash.update(JSON.stringify(records.slice(start, start + DIGEST_RECORDS)));
  }
  return hash.digest("base64");
}

/** How many records a page has, and its first and last: a page that differs here differs. */
function recordsMark(records: readonly unknown[]): string {
  const hash = createHash("sha256").update(`${records.length}\n`);
  hash.update(JSON.stringify(records[0]) ?? "");
  if (records.length > 1) hash.update(`\n${JSON.stringify(records.at(-1)) ?? ""}`);
  return hash.digest("base64");
}

/** A page whose answers are no larger is kept until the next, to be digested if need be. */
const KEPT_BYTES = 256 * 1024;

/**
 * Tells a page whose records are the page before's, as an upstream that ignores the offset serves
 * them for ever. Each page is marked cheaply (its count, first and last record); only a page whose
 * mark repeats the previous page's is digested whole, with that page: digesting a page costs
 * more than any other step of reading it. A previous page too large to keep (KEPT_BYTES) is
 * digested only if its mark repeated too, so a repeat of a large page is told a page later.
 */
export class RepeatedPages {
  #mark: string | null = null;
  /** The previous page's digest, when it was taken. */
  #digest: string | null = null;
  /** The previous page's records, when its answers were small. */
  #kept: readonly unknown[] | null = null;

  /** Whether `records` (from answers of `bytes`) are the previous page's; none repeat nothing. */
  repeats(records: readonly unknown[], bytes: number): boolean {
    if (records.length === 0) {
      this.#mark = this.#digest = this.#kept = null;
      return false;
    }
    const mark = recordsMark(records);
    let digest: string | null = null;
    let repeated = false;
    if (mark === this.#mark) {
      digest = recordsDigest(records);
      const previous = this.#digest ?? (this.#kept === null ? null : recordsDigest(this.#kept));
      repeated = digest === previous;
    }
    this.#mark = mark;
    this.#digest = digest;
    this.#kept = bytes <= KEPT_BYTES ? records : null;
    return repeated;
  }
}
