import type { Partition } from "../partition.js";
import { type PartitionSet, WHOLE_TABLE } from "../partition-set.js";

/** Royalties lists have no day and no part: one partition, the whole list, on every run. */
export const WHOLE_LIST: PartitionSet<Partition> = {
  plan: () => [{ key: "all" }],
  scope: WHOLE_TABLE,
};
