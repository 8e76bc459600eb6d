import { pageNumberPaging } from "../paging.js";
import type { Partition } from "../stream.js";

/** The look-ups' paging: pages from 0, 100 records asked (the upstream caps `page_size` at 100). */
export const LOOKUP_PAGING = pageNumberPaging(100);

/** One configured look-up value: a UPC, an artist name, a territory or DSP key. */
export interface LookupPartition extends Partition {
  readonly value: string;
}

/** One partition per configured value, keyed `<prefix>:<value>` ("upc:0600", "name:a"). */
export function lookupPartitions(prefix: string, values: readonly string[]): LookupPartition[] {
  return values.map((value) => ({ key: `${prefix}:${value}`, value }));
}
