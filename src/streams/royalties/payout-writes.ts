// The account's three writes: a payout request, its threshold and its withdrawal type. No stream
// sends them (the payouts command does); a payout request's answer holds the payout as the lists
// show it, read by the payouts stream's reader.
import { randomUUID } from "node:crypto";
import { z } from "zod";
import { API_PREFIX, defineOperation } from "../../api/operation.js";
import { amount } from "../../api/params.js";
import { toInteger, toText } from "../../api/read-values.js";
import { asRecord, type JsonRecord } from "../../json/json-record.js";
import { type Payout, toPayout } from "./payouts.js";

/** The upstream's answer to a write: accepted, or refused with its reason code (`type`). */
export type WriteResult =
  | { readonly accepted: true; readonly message: string | null; readonly raw: JsonRecord }
  | {
      readonly accepted: false;
      readonly message: string | null;
      /** 1: insufficient funds; 0: the withdrawal type cannot change now (spec, Errors). */
      readonly type: number | null;
      readonly raw: JsonRecord;
    };

export type PayoutRequestResult = WriteResult & {
  readonly payout: Payout | null;
  readonly withdrawalType: number | null;
};

function toWriteResult(body: unknown): WriteResult {
  const raw = asRecord(body) ?? {};
  const message = toText(raw.message);
  return raw.status === false
    ? { accepted: false, message, type: toInteger(raw.type), raw }
    : { accepted: true, message, raw };
}

/** A refusal (`{status: false, ...}`) is an answer to show the user, whatever its HTTP status. */
function isRefusal(status: number, body: unknown): boolean {
  return status >= 400 && status < 500 && asRecord(body)?.status === false;
}

export const requestPayoutOperation = defineOperation({
  name: "royalties.requestPayout",
  params: z.object({
    amount,
    /** Sent with every try so that a retried request never creates a second payout. */
    idempotency_key: z.uuid("must be a UUID").default(() => randomUUID()),
  }),
  request: ({ amount, idempotency_key }) => ({
    method: "POST",
    path: `${API_PREFIX}/payouts`,
    body: { amount, idempotency_key },
    headers: { "idempotency-key": idempotency_key },
    acceptStatus: isRefusal,
    failureIsAnswer: true,
  }),
  parse: (body): PayoutRequestResult => {
    const result = toWriteResult(body);
    const payout = asRecord(result.raw.payout);
    return {
      ...result,
      payout: payout ? toPayout(payout) : null,
      withdrawalType: toInteger(result.raw.withdrawal_type),
    };
  },
});

export const setThresholdOperation = defineOperation({
  name: "royalties.setThreshold",
  params: z.object({ amount }),
  request: ({ amount }) => ({
    method: "POST",
    path: `${API_PREFIX}/setThreshold`,
    body: { amount },
    acceptStatus: isRefusal,
    failureIsAnswer: true,
  }),
  parse: toWriteResult,
});

export const setMonthlyTypeOperation = defineOperation({
  name: "royalties.setMonthlyType",
  params: z.object({}),
  request: () => ({
    method: "POST",
    path: `${API_PREFIX}/payouts/set-monthly-type`,
    acceptStatus: isRefusal,
    failureIsAnswer: true,
  }),
  parse: toWriteResult,
});
