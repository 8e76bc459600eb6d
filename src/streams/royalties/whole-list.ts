import type { Partition } from "../partition.js";

/** Royalties lists are unpaged and have no day: one partition, synced on every run. */
export const WHOLE_LIST: readonly Partition[] = [{ key: "all" }];
