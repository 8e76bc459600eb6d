import { listPayouts, type Payout } from "../../api/operations/royalties.js";
import { listRead, single } from "../list-read.js";
import { NEXT_LINK_PAGING } from "../paging.js";
import { defineStream, type Output, type Stream } from "../stream.js";
import { type Partition } from "../partition.js";
import { toInstant } from "../../api/read-values.js";
import { WHOLE_LIST } from "./whole-list.js";

/** A payout as one sync listed it, on the run's date. */
export interface SeenPayout {
  readonly payout: Payout;
  /** The run's date (UTC): stored as last_seen_on, so it changes at most once a day. */
  readonly seenOn: string;
}

/**
 * Both payout lists feed royalties.payouts. Triggers on that table record status history and keep
 * first_seen_at, last_seen_at and synced_at (see the migration); the writer never sends them.
 */
export const payoutOutput: Output<Partition, SeenPayout> = {
  target: {
    table: "royalties.payouts",
    key: ["payout_id"],
  },
  mode: "upsert",
  rows: ({ payout, seenOn }) => [
    {
      payout_id: payout.id,
      user_id: payout.userId,
      amount: payout.amount,
      currency: payout.currency,
      fees: payout.fees,
      net_amount: payout.netAmount,
      wallet: payout.wallet,
      status: payout.status,
      method: payout.method,
      reference: payout.reference,
      created_at: toInstant(payout.createdAt),
      processed_at: toInstant(payout.processedAt),
      notes: payout.notes,
      idempotency_key: payout.idempotencyKey,
      raw: payout.raw,
      last_seen_on: seenOn,
    },
  ],
};

/** A stream of one of the two payout lists (all payouts, pending payouts), paged as its body says. */
export function payoutListStream(name: string, operation: typeof listPayouts): Stream {
  return defineStream<Partition, SeenPayout, typeof NEXT_LINK_PAGING>({
    name,
    family: "royalties",
    paging: NEXT_LINK_PAGING,
    partitions: () => WHOLE_LIST,
    fetch: async (_context, _partition, page) => [await page.exchange(operation, {})],
    read: (exchanges, _partition, context) => {
      const { payouts, others, list } = operation.parse(single(exchanges).body);
      const records = payouts.map((payout) => ({ payout, seenOn: context.today }));
      return listRead({ records, others, list });
    },
    outputs: [payoutOutput],
  });
}
