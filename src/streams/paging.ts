import type { ListPage } from "../api/list-page.js";
import { addDays } from "../time/calendar.js";
import type { Cursor, PageWarning, Partition, ReadContext } from "./partition.js";

/**
 * none (one request), offset/limit or offset/size (artist statistics, trends), page number (the
 * look-ups), next link (a body that says how it goes on: the royalties lists), windows (a date
 * series asked a window at a time).
 */
export type PagingStyle =
  "none" | "offset/limit" | "offset/size" | "page number" | "next link" | "windows";

/**
 * A page's cursor as stored with its responses and with the attempt that read it: JSON text
 * ("null" for the first page). Whether an offset page was asked as a probe depends on what the
 * run had learned, not on the page: it is left out, so the same request is the same page in
 * every run.
 */
export function pageKey(cursor: Cursor): string {
  return JSON.stringify(cursor ?? null, (key, value: unknown) =>
    key === "probe" ? undefined : value,
  );
}

/** What the request of one page carries besides the stream's own parameters. */
export interface PagingRequest<Q extends object> {
  readonly params: Q;
  /** A next-page link the previous page gave: followed instead, it carries everything. */
  readonly link?: string;
}

/**
 * What a page read says of its list, and where in the partition it was read: what the paging's
 * `next` decides from, handed by the load (or the plan's read) to the extract loop.
 */
export interface PageRead {
  readonly list: ListPage | null;
  readonly context: ReadContext;
}

/** What a paging style decides of one page: where the next starts, and what is uncertain. */
export interface PagingStep<C> {
  readonly next: C | null;
  readonly warnings: readonly PageWarning[];
}

/**
 * How a stream's list goes on from page to page, run by the runner's extract loop, which keeps
 * the cursor: it asks the page at a cursor with `request`, and the cursor of the next from `next`
 * once the page is read; a stream never handles either. `C` is
 * the cursor (stored as JSON with the page's responses), `Q` the parameters a page is asked with.
 * Both are properties rather than methods so that the cursor is checked both ways: a stream whose
 * cursor is not its paging's does not compile.
 */
export interface Paging<C, Q extends object, P extends Partition = Partition> {
  readonly style: PagingStyle;
  /** What to ask for the page at `cursor` (null: the first), or null when there is nothing to ask. */
  readonly request: (cursor: C | null, partition: P) => PagingRequest<Q> | null;
  /** Where the page after `cursor` starts, from what its body says of the list (null: nothing). */
  readonly next: (
    list: ListPage | null,
    cursor: C | null,
    context: ReadContext,
    partition: P,
  ) => PagingStep<C>;
}

/** A paging, whatever its cursor, parameters and partitions. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any cursor, parameters, partition
export type AnyPaging = Paging<any, any, any>;

/** The cursor of a paging. */
export type CursorOf<G extends AnyPaging> = G extends Paging<infer C, object, never> ? C : never;

/** The parameters a paging adds to a page's request. */
export type ParamsOf<G extends AnyPaging> = G extends Paging<infer _C, infer Q, never> ? Q : never;

const END: PagingStep<never> = { next: null, warnings: [] };

/**
 * Why the body says the list holds more than `read` records, or null: a total above it, a next
 * link, a last page not reached. Asked when paging stops, so a stop is never quietly early.
 */
function moreThanRead(list: ListPage, read: number): string | null {
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

/**
 * What a page that ends a list's reading says of its end: a warning when its body says the list
 * holds more than was read (a total above it, a next-page link, a last page not reached). What a
 * replay asks of the last page it loads, where a sync's paging asks it when it stops.
 */
export function endWarnings(list: ListPage | null, context: ReadContext): readonly PageWarning[] {
  return list === null ? [] : stop(list, readTo(list, context)).warnings;
}

/** The end of a list: no next page, and a warning if the body says otherwise. */
function stop(list: ListPage, read: number): PagingStep<never> {
  const more = moreThanRead(list, read);
  return { next: null, warnings: more ? [{ kind: "truncated", message: more }] : [] };
}

/** Records read up to the end of this page's list. */
function readTo(list: ListPage, context: ReadContext): number {
  return context.position + list.items.length;
}

/**
 * An unpaged stream: its one request is its whole list, so its only cursor is the first page's.
 * A body that says the list holds more is reported (one that holds no list says nothing).
 */
export const NO_PAGING: Paging<null, Record<never, never>> = {
  style: "none",
  request: () => ({ params: {} }),
  next: (list, _cursor, context) => (list === null ? END : stop(list, readTo(list, context))),
};

/** An offset-paged list's cursor: where the page starts, and whether it is a probe. */
export interface OffsetCursor {
  readonly offset: number;
  /** Set on the request after a short page: that page's length, a cap if this one has records. */
  readonly probe?: number;
}

export type OffsetParams<N extends string> = { readonly offset: number } & Readonly<
  Record<N, number>
>;

/**
 * Offsets and a page size named `sizeParam` (`limit` for artist statistics, `size` for trends),
 * `size` records asked per page of `operation` (which names the learned page sizes).
 */
export function offsetPaging<N extends "limit" | "size">(
  operation: string,
  size: number,
  sizeParam: N,
): Paging<OffsetCursor, OffsetParams<N>> {
  return {
    style: sizeParam === "limit" ? "offset/limit" : "offset/size",
    request: (cursor) => ({
      params: { offset: cursor?.offset ?? 0, [sizeParam]: size } as OffsetParams<N>,
    }),
    next: (list, cursor, context) =>
      list === null ? END : nextOffset(operation, cursor, size, list, context),
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
  const read = readTo(list, context);
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

/**
 * The page after a numbered one. Asked with a page size, counting decides: a page as long as the
 * size the body states (else the one asked), within the stated total, is followed by the next.
 * Asked without, the body's own page and last page decide (their numbers may start at 0 or 1).
 */
function nextPageNumber(
  list: ListPage,
  asked: { readonly page: number; readonly size: number } | null,
  read: number,
): PagingStep<number> {
  const received = list.items.length;
  if (received === 0) return stop(list, read);
  if (asked !== null) {
    const size = list.pageSize ?? asked.size;
    const full = received >= size && (list.total === null || (asked.page + 1) * size < list.total);
    return full ? { next: asked.page + 1, warnings: [] } : stop(list, read);
  }
  if (list.page !== null && list.lastPage !== null && list.page < list.lastPage) {
    return { next: list.page + 1, warnings: [] };
  }
  return stop(list, read);
}

export interface PageNumberParams {
  readonly page: number;
  readonly page_size: number;
}

/** Page numbers from 0 with `page_size: size` (the look-ups); the page number is the cursor. */
export function pageNumberPaging(size: number): Paging<number, PageNumberParams> {
  return {
    style: "page number",
    request: (page) => ({ params: { page: page ?? 0, page_size: size } }),
    next: (list, page, context) =>
      list === null ? END : nextPageNumber(list, { page: page ?? 0, size }, readTo(list, context)),
  };
}

/** The cursor of a list paged by its body: a page number to ask for, or a link to follow. */
type BodyCursor = { readonly page: number } | { readonly link: string };

/**
 * A list whose body says how it goes on: a next-page link, followed only on the upstream's own
 * origin, else the body's page and last page. The first page is asked with no paging at all.
 */
export const NEXT_LINK_PAGING: Paging<BodyCursor, { readonly page?: number }> = {
  style: "next link",
  request: (cursor) =>
    cursor === null
      ? { params: {} }
      : "link" in cursor
        ? { params: {}, link: cursor.link }
        : { params: { page: cursor.page } },
  next: (list, _cursor, context) => (list === null ? END : nextFromBody(list, context)),
};

function nextFromBody(list: ListPage, context: ReadContext): PagingStep<BodyCursor> {
  if (list.nextLink === null) {
    const { next, warnings } = nextPageNumber(list, null, readTo(list, context));
    return { next: next === null ? null : { page: next }, warnings };
  }
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

/** A partition of a date series: [since, until] (since > until: nothing to fetch). */
export interface WindowPartition extends Partition {
  readonly since: string;
  readonly until: string;
}

/**
 * A series asked `days` days at a time, from the partition's `since` to its `until`; the cursor
 * is the next window's first day.
 */
export function windowPaging(
  days: number,
): Paging<string, { readonly since: string; readonly until: string }, WindowPartition> {
  const windowAt = (start: string, until: string) => {
    const end = addDays(start, days - 1);
    return { since: start, until: end < until ? end : until };
  };
  return {
    style: "windows",
    request: (cursor, { since, until }) => {
      const start = cursor ?? since;
      return start > until ? null : { params: windowAt(start, until) };
    },
    next: (_list, cursor, _context, { since, until }) => {
      const window = windowAt(cursor ?? since, until);
      return { next: window.until < until ? addDays(window.until, 1) : null, warnings: [] };
    },
  };
}

/**
 * Partitions that page apart (each of their operations learns its own page sizes) in one style:
 * their cursor and parameters are one type. `of` names a partition's paging.
 */
export function pagingByPartition<P extends Partition, K extends string, C, Q extends object>(
  of: (partition: P) => K,
  pagings: Readonly<Record<K, Paging<C, Q, P>>>,
): Paging<C, Q, P> {
  const [first] = Object.values<Paging<C, Q, P>>(pagings);
  if (!first) throw new Error("pagingByPartition: no paging given");
  return {
    style: first.style,
    request: (cursor, partition) => pagings[of(partition)].request(cursor, partition),
    next: (list, cursor, context, partition) =>
      pagings[of(partition)].next(list, cursor, context, partition),
  };
}
