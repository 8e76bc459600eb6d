import { listPayouts, listPendingPayouts, toPayout } from "../../api/operations/royalties.js";
import { toInstant } from "../../api/read-values.js";
import { endpointStream } from "../endpoint-stream.js";
import { NEXT_LINK_PAGING } from "../paging.js";
import { WHOLE_LIST } from "./whole-list.js";

/**
 * A stream of one of the two payout lists, paged as its body says. Both feed royalties.payouts:
 * triggers on that table record status history and keep first_seen_at, last_seen_at and
 * synced_at (see the migration); the writer never sends them.
 */
function payoutList(name: string, operation: typeof listPayouts) {
  return endpointStream({
    name,
    family: "royalties",
    partitions: WHOLE_LIST,
    operation,
    params: () => ({}),
    paging: NEXT_LINK_PAGING,
    records: "list",
    table: "royalties.payouts",
    key: ["payout_id"],
    mode: "upsert",
    columns: (record, { today }) => {
      const payout = toPayout(record);
      return {
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
        // The run's date (UTC): it changes at most once a day.
        last_seen_on: today,
      };
    },
  });
}

/** Every payout of the account, in its current state. */
export const payouts = payoutList("payouts", listPayouts);

/** The pending payouts: the same table as `payouts`, from the upstream's own pending list. */
export const pendingPayouts = payoutList("pending_payouts", listPendingPayouts);
