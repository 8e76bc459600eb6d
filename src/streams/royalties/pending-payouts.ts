import { defineStream, type Partition } from "../stream.js";
import { payoutOutput, type SeenPayout, seenPayouts } from "./payout-output.js";
import { WHOLE_LIST } from "./whole-list.js";

/** The pending payouts: the same table as `payouts`, from the upstream's own pending list. */
export const pendingPayouts = defineStream<Partition, SeenPayout>({
  name: "pending_payouts",
  family: "royalties",
  partitions: () => WHOLE_LIST,
  fetch: async ({ api, call, today }) => ({
    records: seenPayouts((await api.royalties.listPendingPayouts({}, call)).payouts, today),
    next: null,
  }),
  outputs: [payoutOutput],
});
