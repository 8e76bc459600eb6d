import { openEnvelope } from "./envelope.js";
import { asRecord, type JsonRecord } from "../json/json-record.js";

/**
 * What a list response holds, and what it says of the rest of the list. The spec shows no list
 * body beyond the lookup envelopes, so everything a body may use to say "there is more" is read:
 * a total (`total`, `length`, `count` beside the list), a next-page link (`next_page_url`,
 * `links.next`, `next`), a page number with its last page (`current_page`/`last_page`, also
 * under `meta` or `pagination`), and the page size (`page_size`, `per_page`).
 */
export interface ListPage {
  /** Every item of the list, objects or not, in order; empty when no list was found. */
  readonly items: readonly unknown[];
  /** False when the body holds no list at all (an empty list is a list). */
  readonly found: boolean;
  /** Arrays of objects the body also holds beside the one read, by key: ambiguous bodies. */
  readonly otherLists: readonly string[];
  readonly total: number | null;
  readonly nextLink: string | null;
  readonly page: number | null;
  readonly lastPage: number | null;
  readonly pageSize: number | null;
}

/** Keys under which wrapped lists are most commonly found, in order of preference. */
const LIST_KEYS = ["obj", "data", "items", "results", "rows", "list", "records"];
const TOTAL_KEYS = ["total", "length", "count", "total_count", "totalCount"];
const NEXT_KEYS = ["next_page_url", "next", "nextPage", "next_page"];
const PAGE_KEYS = ["current_page", "currentPage", "page"];
const LAST_PAGE_KEYS = ["last_page", "lastPage", "total_pages", "totalPages", "pages"];
const PAGE_SIZE_KEYS = ["page_size", "per_page", "pageSize", "perPage"];

function wholeNumber(value: unknown): number | null {
  const number = typeof value === "string" && value.trim() !== "" ? Number(value) : value;
  return typeof number === "number" && Number.isInteger(number) && number >= 0 ? number : null;
}

function firstOf<T>(
  records: readonly (JsonRecord | null)[],
  keys: readonly string[],
  read: (value: unknown) => T | null,
): T | null {
  for (const record of records) {
    if (!record) continue;
    for (const key of keys) {
      if (!(key in record)) continue;
      const value = read(record[key]);
      if (value !== null) return value;
    }
  }
  return null;
}

function link(value: unknown): string | null {
  if (typeof value === "string" && value.trim() !== "") return value.trim();
  return asRecord(value) ? link(asRecord(value)?.href) : null;
}

const isObjectList = (value: unknown): value is unknown[] =>
  Array.isArray(value) && value.some((item) => asRecord(item) !== null);

interface Located {
  readonly list: unknown[];
  /** The objects from the body down to the list: where paging fields sit. */
  readonly envelopes: JsonRecord[];
  readonly otherLists: string[];
}

/**
 * The list inside an opened body, wherever it is: the body itself, an array under a well-known
 * key (`{items: [...]}`, `{obj: {length, data: [...]}}`), or else the only array of objects under
 * any key. Several arrays of objects with no well-known key among them: the first is read and the
 * others named, so the run can say the body was ambiguous.
 */
function locate(body: unknown, depth: number): Located | null {
  if (Array.isArray(body)) return { list: body, envelopes: [], otherLists: [] };
  const record = asRecord(body);
  if (!record || depth > 3) return null;
  for (const key of LIST_KEYS) {
    if (!(key in record)) continue;
    const found = locate(record[key], depth + 1);
    if (found) {
      const others = Object.entries(record)
        .filter(([other, value]) => other !== key && isObjectList(value))
        .map(([other]) => other);
      return {
        list: found.list,
        envelopes: [record, ...found.envelopes],
        otherLists: [...others, ...found.otherLists],
      };
    }
  }
  const arrays = Object.entries(record).filter(([, value]) => Array.isArray(value));
  const objectLists = arrays.filter(([, value]) => isObjectList(value));
  const chosen = objectLists[0] ?? arrays[0];
  if (!chosen) return null;
  return {
    list: chosen[1] as unknown[],
    envelopes: [record],
    otherLists: objectLists.slice(1).map(([key]) => key),
  };
}

export function readListPage(body: unknown): ListPage {
  const opened = openEnvelope(body);
  const located = opened.data === null ? null : locate(opened.data, 0);
  const inner =
    located?.envelopes ?? (asRecord(opened.data) ? [asRecord(opened.data) as JsonRecord] : []);
  const envelopes = [...opened.envelopes, ...inner];
  // Paging fields sit beside the list or in a `meta`/`pagination`/`links` object of an envelope.
  const places = envelopes.flatMap((envelope) => [
    envelope,
    asRecord(envelope.meta),
    asRecord(envelope.pagination),
    asRecord(envelope.paging),
    asRecord(envelope.links),
  ]);
  return {
    items: located?.list ?? [],
    // A body that says nothing (`{}`, `[]`, `{obj: null}`) holds an empty list.
    found: located !== null || opened.data === null,
    otherLists: located?.otherLists ?? [],
    total: firstOf(places, TOTAL_KEYS, wholeNumber),
    nextLink: firstOf(places, NEXT_KEYS, link),
    page: firstOf(places, PAGE_KEYS, wholeNumber),
    lastPage: firstOf(places, LAST_PAGE_KEYS, wholeNumber),
    pageSize: firstOf(places, PAGE_SIZE_KEYS, wholeNumber),
  };
}

/** The single object (or list) a body holds, opened from its envelopes; null for nothing. */
export function unwrapObject(body: unknown): unknown {
  return openEnvelope(body).data;
}

/** The items of a body's list; none when it holds no list. */
export function listOf(body: unknown): unknown[] {
  return [...readListPage(body).items];
}

/** The object records of a body's list; other items are left out (callers that keep them use readListPage). */
export function recordsOf(body: unknown): JsonRecord[] {
  return listOf(body).flatMap((item) => {
    const record = asRecord(item);
    return record ? [record] : [];
  });
}
