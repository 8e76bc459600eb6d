import { toDecimal, toInstant, toMoney, toText } from "../../api/read-values.js";
import { asRecord, type JsonRecord } from "../../json/json-record.js";
import { endpointStream } from "../endpoint-stream.js";
import { NEXT_LINK_PAGING } from "../paging.js";
import { royaltiesList, WHOLE_LIST } from "./whole-list.js";

export interface Payout {
  readonly id: string | null;
  readonly userId: string | null;
  /** Money as the exact decimal text it came as. */
  readonly amount: string | null;
  readonly currency: string | null;
  readonly fees: string | null;
  readonly netAmount: string | null;
  readonly wallet: string | null;
  readonly status: string | null;
  readonly method: string | null;
  readonly reference: string | null;
  readonly createdAt: string | null;
  readonly processedAt: string | null;
  readonly notes: string | null;
  readonly idempotencyKey: string | null;
  readonly raw: JsonRecord;
}

export function toPayout(raw: JsonRecord): Payout {
  const metadata = asRecord(raw.metadata) ?? {};
  return {
    id: toText(raw.id),
    userId: toText(raw.user_id),
    amount: toMoney(raw.amount),
    currency: toText(raw.currency),
    fees: toMoney(raw.fees),
    netAmount: toMoney(raw.net_amount),
    wallet: toDecimal(raw.wallet),
    status: toText(raw.status),
    method: toText(raw.method),
    reference: toText(raw.reference),
    createdAt: toText(raw.created_at),
    processedAt: toText(raw.processed_at),
    notes: toText(raw.notes),
    idempotencyKey: toText(metadata.idempotency_key),
    raw,
  };
}

export const listPayoutsOperation = royaltiesList("royalties.listPayouts", "/payouts");
export const listPendingPayoutsOperation = royaltiesList(
  "royalties.listPendingPayouts",
  "/payouts/pending",
);

/**
 * A stream of one of the two payout lists, paged as its body says. Both feed royalties.payouts:
 * triggers on that table record status history and keep first_seen_at, last_seen_at and
 * synced_at (see the migration); the writer never sends them.
 */
function payoutList(name: string, operation: typeof listPayoutsOperation) {
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
export const payouts = payoutList("payouts", listPayoutsOperation);

/** The pending payouts: the same table as `payouts`, from the upstream's own pending list. */
export const pendingPayouts = payoutList("pending_payouts", listPendingPayoutsOperation);
