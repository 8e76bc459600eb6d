import type { LookupPage } from "../../api/operations/catalogue.js";
import { type Paging, type PagingStep, stop } from "../paging.js";
import type { Partition, ReadContext } from "../stream.js";

/** Asked of every lookup; the upstream caps `page_size` at 100. */
const LOOKUP_PAGE_SIZE = 100;

/** One configured look-up value: a UPC, an artist name, a territory or DSP key. */
export interface LookupPartition extends Partition {
  readonly value: string;
}

/** One partition per configured value, keyed `<prefix>:<value>` ("upc:0600", "name:a"). */
export function lookupPartitions(prefix: string, values: readonly string[]): LookupPartition[] {
  return values.map((value) => ({ key: `${prefix}:${value}`, value }));
}

interface LookupPaging extends Paging {
  params(page: number | null): { readonly page: number; readonly page_size: number };
  next(page: number | null, result: LookupPage<unknown>, context: ReadContext): PagingStep<number>;
}

/** The look-ups' paging: a 0-based page number and a page size, the page the cursor. */
export const lookupPaging: LookupPaging = {
  style: "page number",
  params: (page) => ({ page: page ?? 0, page_size: LOOKUP_PAGE_SIZE }),
  next: (page, result, context) => nextLookupPage(page, result, context),
};

/**
 * The page after this one, or the end of the envelope's list: the page was short (by the page
 * size the envelope reports, else the one asked for), or `total` records have been served.
 */
function nextLookupPage(
  cursor: number | null,
  result: LookupPage<unknown>,
  context: ReadContext,
): PagingStep<number> {
  const page = cursor ?? 0;
  const pageSize = result.pageSize ?? LOOKUP_PAGE_SIZE;
  const received = result.records.length + result.others.length;
  const ended =
    received === 0 ||
    received < pageSize ||
    (result.total !== null && (page + 1) * pageSize >= result.total);
  return ended ? stop(result.list, context.position + received) : { next: page + 1, warnings: [] };
}
