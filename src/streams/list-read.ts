import type { Exchange } from "../api/api-client.js";
import type { ListPage } from "../api/list-page.js";
import { listWarnings } from "./paging.js";
import type { PageRead, RejectedItem } from "./stream.js";

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
 * A page of a list: its records, its items that are none (quarantined), the list for the
 * stream's paging, and what the list itself leaves uncertain.
 */
export function listRead<R>(page: {
  readonly records: readonly R[];
  readonly others: readonly unknown[];
  readonly list: ListPage;
}): PageRead<R> {
  return {
    records: page.records,
    list: page.list,
    rejected: notRecords(page.others),
    warnings: listWarnings(page.list),
  };
}
