import { z } from "zod";
import { API_PREFIX, defineOperation } from "../../api/operation.js";
import { toRecordList } from "../../api/results.js";
import type { Partition } from "../partition.js";
import { type PartitionSet, WHOLE_TABLE } from "../partition-set.js";

/** Royalties lists have no day and no part: one partition, the whole list, on every run. */
export const WHOLE_LIST: PartitionSet<Partition> = {
  plan: () => [{ key: "all" }],
  scope: WHOLE_TABLE,
};

/**
 * Royalties lists show no paging in the spec; an upstream that pages them says so in the body,
 * and the next page is then asked for by number (or its link followed).
 */
export const LIST_PARAMS = z.object({ page: z.number().int().min(1).optional() });

/** A royalties list at `path`, its records the upstream's own. */
export const royaltiesList = (name: string, path: string) =>
  defineOperation({
    name,
    params: LIST_PARAMS,
    request: (query: z.output<typeof LIST_PARAMS>) => ({
      method: "GET" as const,
      path: `${API_PREFIX}${path}`,
      query,
    }),
    parse: toRecordList,
  });
