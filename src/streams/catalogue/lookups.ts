import type { EtlConfig } from "../../config/etl-config-schema.js";
import { compound, product } from "../dimensions.js";
import { pageNumberPaging } from "../paging.js";
import type { Partition } from "../partition.js";
import type { PartitionSet } from "../partition-set.js";

/** The look-ups' paging: pages from 0, 100 records asked (the upstream caps `page_size` at 100). */
export const LOOKUP_PAGING = pageNumberPaging(100);

/** One configured look-up value: a UPC, an artist name, a territory or DSP key. */
export interface LookupPartition extends Partition {
  readonly value: string;
}

/**
 * One partition per configured value, keyed `<prefix>:<value>` ("upc:0600", "name:a"). A compound
 * dimension writes that key: etl.stream_state and etl.sync_runs hold look-ups under it, and a
 * plain dimension's key (the value alone) would orphan their state.
 */
export function lookupPartitions(
  prefix: string,
  values: readonly string[],
): Iterable<LookupPartition> {
  return product({
    lookup: compound(
      values.map((value) => ({ value })),
      ({ value }) => `${prefix}:${value}`,
    ),
  });
}

/**
 * The configured values of a look-up, keyed `<prefix>:<value>`. Look-ups add to their tables and
 * never delete: their rows belong to no partition.
 */
export function lookups(
  prefix: string,
  values: (config: EtlConfig) => readonly string[],
): PartitionSet<LookupPartition> {
  return {
    plan: ({ config }) => lookupPartitions(prefix, values(config)),
    scope: () => ({}),
    sharesTable: true,
  };
}
