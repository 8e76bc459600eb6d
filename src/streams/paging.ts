import type { ListPage } from "../api/list-page.js";
import type { PageWarning, ReadContext } from "./stream.js";

/**
 * How a stream's list goes on from page to page. Each style has one implementation here (or, for
 * the catalogue look-ups and the royalties lists, beside the streams that share it), and every
 * stream declares its own: none (one request), offset/limit or offset/size (artist statistics,
 * trends), page number (the look-ups), next link (a body that says how it goes on), windows (a
 * date series asked a span at a time).
 */
export interface Paging {
  readonly style: "none" | "offset/limit" | "offset/size" | "page number" | "next link" | "windows";
}

/** An unpaged stream: its one request is its whole list. */
export const NO_PAGING: Paging = { style: "none" };

/** What a paging style decides of one page: where the next starts, and what is uncertain. */
export interface PagingStep<C = never> {
  readonly next: C | null;
  readonly warnings: readonly PageWarning[];
}

/**
 * Why the body says the list holds more than `read` records, or null: a total above it, a next
 * link, a last page not reached. Asked when paging stops, so a stop is never quietly early.
 */
export function moreThanRead(list: ListPage, read: number): string | null {
  if (list.total !== null && list.total > read) {
    return `the response reports ${list.total} records, ${read} were read`;
  }
  if (list.nextLink !== null) return "the response has a next-page link that was not followed";
  if (list.page !== null && list.lastPage !== null && list.page < list.lastPage) {
    return `the response is page ${list.page} of ${list.lastPage}`;
  }
  return null;
}

/** Warnings of a list page itself: no list found, or several lists of which one was read. */
export function listWarnings(list: ListPage): PageWarning[] {
  const warnings: PageWarning[] = [];
  if (!list.found) warnings.push({ kind: "no_list", message: "no list found in the response" });
  if (list.otherLists.length > 0) {
    warnings.push({
      kind: "ambiguous",
      message: `the response holds several lists; read one, not ${list.otherLists.join(", ")}`,
    });
  }
  return warnings;
}

/** The end of a list: no next page, and a warning if the body says otherwise. */
export function stop(list: ListPage, read: number): PagingStep<never> {
  const more = moreThanRead(list, read);
  return { next: null, warnings: more ? [{ kind: "truncated", message: more }] : [] };
}

/** An offset-paged list's cursor: where the page starts, and whether it is a probe. */
export interface OffsetCursor {
  readonly offset: number;
  /** Set on the request after a short page: that page's length, a cap if this one has records. */
  readonly probe?: number;
}

/** An offset-paged list, as a stream declares it: what to ask, and where the next page starts. */
export interface OffsetPaging<N extends string> extends Paging {
  readonly style: "offset/limit" | "offset/size";
  /** The paging parameters of the page at `cursor` (null: the first). */
  params(cursor: OffsetCursor | null): { readonly offset: number } & Readonly<Record<N, number>>;
  next(list: ListPage, cursor: OffsetCursor | null, context: ReadContext): PagingStep<OffsetCursor>;
}

/**
 * Offsets and a page size named `sizeParam` (`limit` for artist statistics, `size` for trends),
 * `size` records asked per page of `operation` (which names the learned page sizes).
 */
export function offsetPaging<N extends "limit" | "size">(
  operation: string,
  size: number,
  sizeParam: N,
): OffsetPaging<N> {
  return {
    style: sizeParam === "limit" ? "offset/limit" : "offset/size",
    params: (cursor) =>
      ({ offset: cursor?.offset ?? 0, [sizeParam]: size }) as { offset: number } & Record<
        N,
        number
      >,
    next: (list, cursor, context) => nextOffset(operation, cursor, size, list, context),
  };
}

/**
 * The next page of an offset/limit list. A stated total decides; else a page as long as asked
 * (or as the operation's learned cap) is full; a shorter one ends the list unless it may be a
 * cap not yet learned, which one probe settles (see PageSizes).
 */
function nextOffset(
  operation: string,
  cursor: OffsetCursor | null,
  asked: number,
  list: ListPage,
  context: ReadContext,
): PagingStep<OffsetCursor> {
  const offset = cursor?.offset ?? 0;
  const probe = cursor?.probe;
  const received = list.items.length;
  const read = context.position + received;
  const sizes = context.pageSizes;
  if (probe !== undefined) {
    if (received > 0) sizes.learnCap(operation, probe);
    else sizes.learnEnding(operation, probe);
  }
  const more: PagingStep<OffsetCursor> = { next: { offset: offset + received }, warnings: [] };
  if (list.total !== null) {
    if (received < asked && offset + received < list.total) sizes.learnCap(operation, received);
    return received > 0 && offset + received < list.total ? more : stop(list, read);
  }
  if (received === 0) return stop(list, read);
  const cap = sizes.cap(operation);
  if (received >= Math.min(asked, cap ?? asked)) {
    if (received < asked) sizes.learnCap(operation, received);
    return more;
  }
  if (cap !== null || sizes.knownEnding(operation, received)) return stop(list, read);
  return { next: { offset: offset + received, probe: received }, warnings: [] };
}

/** The cursor of a list paged by the body: a page number to ask for, or a link to follow. */
export type BodyCursor = { readonly page: number } | { readonly link: string };

/**
 * The next page of a list whose body says how it goes on: a next-page link (followed only on
 * the upstream's own origin), else a page number below the last page.
 */
export function nextFromBody(list: ListPage, context: ReadContext): PagingStep<BodyCursor> {
  const read = context.position + list.items.length;
  if (list.nextLink !== null) {
    if (context.ownsLink(list.nextLink)) return { next: { link: list.nextLink }, warnings: [] };
    return {
      next: null,
      warnings: [
        {
          kind: "truncated",
          message: "the next-page link leads outside the upstream and was not followed",
        },
      ],
    };
  }
  if (list.items.length > 0 && list.page !== null && list.lastPage !== null) {
    if (list.page < list.lastPage) return { next: { page: list.page + 1 }, warnings: [] };
  }
  return stop(list, read);
}
