import type { Exchange } from "../api/api-client.js";
import type { ListPage } from "../api/list-page.js";
import { listWarnings, type PagingStep, stop } from "./paging.js";
import type { PageRead, ReadContext, RejectedItem } from "./stream.js";

/** The one response of a page that makes one request. */
export function single(exchanges: readonly Exchange[]): Exchange {
  const [exchange] = exchanges;
  if (!exchange) throw new Error("a page without a response");
  return exchange;
}

/** Items that no record can be read from, for the quarantine. */
export function notRecords(items: readonly unknown[], what = "an object"): RejectedItem[] {
  return items.map((item) => ({ item, reason: `list item is not ${what}` }));
}

/**
 * A page of a list: its records, its items that are none (quarantined), what the list itself
 * leaves uncertain, and the paging step (the end of an unpaged list, by default).
 */
export function listRead<R, C = never>(
  page: {
    readonly records: readonly R[];
    readonly others: readonly unknown[];
    readonly list: ListPage;
  },
  context: ReadContext,
  step: PagingStep<C> = stop(page.list, context.position + page.list.items.length),
): PageRead<R, C> {
  return {
    records: page.records,
    next: step.next,
    rejected: notRecords(page.others),
    warnings: [...listWarnings(page.list), ...step.warnings],
  };
}
