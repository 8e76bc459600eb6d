import { z } from "zod";
import { offset } from "../../api/params.js";
import { toInteger } from "../../api/read-values.js";
import { type RecordList, toRecordList } from "../../api/results.js";
import type { EtlConfig } from "../../config/etl-config-schema.js";
import { asRecord } from "../../json/json-record.js";
import { compound, product } from "../dimensions.js";
import { pageNumberPaging } from "../paging.js";
import type { Partition } from "../partition.js";
import type { PartitionSet } from "../partition-set.js";

/**
 * A page of a look-up: the list under the entity's name in `{page, page_size, total, <entity>:
 * [...]}`, or the body itself when it is the list; the envelope's total and page size say how
 * far the list goes.
 */
export function lookupPage(body: unknown, entity: string): RecordList {
  const envelope = asRecord(body) ?? {};
  const { list, ...records } = toRecordList(entity in envelope ? envelope[entity] : body);
  return {
    ...records,
    list: {
      ...list,
      total: toInteger(envelope.total) ?? list.total,
      pageSize: toInteger(envelope.page_size),
    },
    raw: body,
  };
}

/** Lookups page with `page` (0-based) and `page_size`, as the envelope they answer with. */
export const LOOKUP_PARAMS = {
  page: offset.optional(),
  page_size: z.number().int("must be a whole number").min(1, "must be at least 1").optional(),
};

/** The look-ups' paging: pages from 0, 100 records asked (the upstream caps `page_size` at 100). */
export const LOOKUP_PAGING = pageNumberPaging(100);

/** One configured look-up value: a UPC, an artist name, a territory or DSP key. */
export interface LookupPartition extends Partition {
  readonly value: string;
}

/**
 * One partition per configured value, keyed `<prefix>:<value>` ("upc:0600", "name:a"). A compound
 * dimension writes that key: etl.stream_state and etl.attempts hold look-ups under it, and a
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
