import { randomUUID } from "node:crypto";
import { z } from "zod";
import { toInteger, toMoney, toDecimal, toText } from "../read-values.js";
import { asRecord, type JsonRecord } from "../../json/json-record.js";
import { API_PREFIX, defineOperation } from "../operation.js";
import { amount } from "../params.js";
import { type RecordList, type ObjectAnswer, toRecordList, toObjectAnswer } from "../results.js";

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

/**
 * Royalties lists show no paging in the spec; an upstream that pages them says so in the body,
 * and the next page is then asked for by number (or its link followed).
 */
const listParams = z.object({ page: z.number().int().min(1).optional() });

const list = (name: string, path: string) =>
  defineOperation({
    name,
    params: listParams,
    request: (query: z.output<typeof listParams>) => ({
      method: "GET" as const,
      path: `${API_PREFIX}${path}`,
      query,
    }),
    parse: toRecordList,
  });

export const listPayouts = list("royalties.listPayouts", "/payouts");
export const listPendingPayouts = list("royalties.listPendingPayouts", "/payouts/pending");

export const requestPayout = defineOperation({
  name: "royalties.requestPayout",
  params: z.object({
    amount,
    /** Sent with every attempt so that a retried request never creates a second payout. */
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

export const setThreshold = defineOperation({
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

export const setMonthlyType = defineOperation({
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

export const listIncomes = defineOperation({
  name: "royalties.listIncomes",
  params: listParams,
  request: (query) => ({ method: "GET", path: `${API_PREFIX}/incomes`, query }),
  parse: (body): RecordList => toRecordList(body),
});

export const getInvoice = defineOperation({
  name: "royalties.getInvoice",
  params: z.object({}),
  request: () => ({ method: "GET", path: `${API_PREFIX}/invoice` }),
  parse: (body): ObjectAnswer => toObjectAnswer(body),
});

export const royaltiesOperations = {
  listPayouts,
  requestPayout,
  setThreshold,
  listPendingPayouts,
  setMonthlyType,
  listIncomes,
  getInvoice,
};
