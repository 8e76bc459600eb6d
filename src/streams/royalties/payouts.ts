import { defineStream, type Partition } from "../stream.js";
import { payoutOutput, type SeenPayout, seenPayouts } from "./payout-output.js";
import { WHOLE_LIST } from "./whole-list.js";

/** Every payout of the account, in its current state. */
export const payouts = defineStream<Partition, SeenPayout>({
  name: "payouts",
  family: "royalties",
  partitions: () => WHOLE_LIST,
  fetch: async ({ api, call, today }) => ({
    records: seenPayouts((await api.royalties.listPayouts({}, call)).payouts, today),
    next: null,
  }),
  outputs: [payoutOutput],
});
