import type { LookupPage } from "../../api/operations/catalogue.js";
import type { Partition } from "../stream.js";

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

/**
 * The page after `page`, or null when the envelope's list is complete: the page was short (by
 * the page size the envelope reports, else the one asked for), or `total` records have been
 * served.
 */
export function nextLookupPage(page: number, result: LookupPage<unknown>): number | null {
  const pageSize = result.pageSize ?? LOOKUP_PAGE_SIZE;
  const received = result.records.length;
  if (received === 0 || received < pageSize) return null;
  if (result.total !== null && (page + 1) * pageSize >= result.total) return null;
  return page + 1;
}
