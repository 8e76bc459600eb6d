import type { Payout } from "../../api/operations/royalties.js";
import type { Output, Partition } from "../stream.js";
import { toInstant } from "../typed-values.js";

/** A payout as one sync listed it, on the run's date. */
export interface SeenPayout {
  readonly payout: Payout;
  /** The run's date (UTC): stored as last_seen_on, so it changes at most once a day. */
  readonly seenOn: string;
}

export function seenPayouts(payouts: readonly Payout[], today: string): SeenPayout[] {
  return payouts.map((payout) => ({ payout, seenOn: today }));
}

/**
 * Both payout lists feed royalties.payouts. Triggers on that table record status history and keep
 * first_seen_at, last_seen_at and synced_at (see the migration); the writer never sends them.
 */
export const payoutOutput: Output<Partition, SeenPayout> = {
  target: {
    table: "royalties.payouts",
    key: ["payout_id"],
    columns: [
      "user_id",
      "amount",
      "currency",
      "fees",
      "net_amount",
      "wallet",
      "status",
      "method",
      "reference",
      "created_at",
      "processed_at",
      "notes",
      "idempotency_key",
      "raw",
      "last_seen_on",
    ],
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
