import type { LookupPage } from "../../api/operations/catalogue.js";
import { type PagingStep, stop } from "../paging.js";
import type { Cursor, Partition, ReadContext } from "../stream.js";

/** Asked of every lookup; the upstream caps `page_size` at 100. */
export const LOOKUP_PAGE_SIZE = 100;

/** One configured look-up value: a UPC, an artist name, a territory or DSP key. */
export interface LookupPartition extends Partition {
  readonly value: string;
}

/** One partition per configured value, keyed `<prefix>:<value>` ("upc:0600", "name:a"). */
export function lookupPartitions(prefix: string, values: readonly string[]): LookupPartition[] {
  return values.map((value) => ({ key: `${prefix}:${value}`, value }));
}

/** The page a lookup cursor asks for (0-based). */
export function lookupPageOf(cursor: Cursor): number {
  return typeof cursor === "number" ? cursor : 0;
}

/**
 * The page after this one, or the end of the envelope's list: the page was short (by the page
 * size the envelope reports, else the one asked for), or `total` records have been served.
 */
export function nextLookupPage(
  cursor: Cursor,
  result: LookupPage<unknown>,
  context: ReadContext,
): PagingStep {
  const page = lookupPageOf(cursor);
  const pageSize = result.pageSize ?? LOOKUP_PAGE_SIZE;
  const received = result.records.length + result.others.length;
  const ended =
    received === 0 ||
    received < pageSize ||
    (result.total !== null && (page + 1) * pageSize >= result.total);
  return ended ? stop(result.list, context.position + received) : { next: page + 1, warnings: [] };
}
