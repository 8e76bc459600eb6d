import { MINIMUM_AMOUNT_CENTS } from "../dataset/royalties.js";
import { amount, optional, parseParams, required, text } from "../http/params.js";
import { json, ok, type Reply } from "../http/reply.js";
import type { Route, RouteContext } from "../http/router.js";

const PREFIX = "/api/v1";
const REQUEST_WITHDRAWAL = 1;
const MONTHLY_WITHDRAWAL = 2;

/** Lists come as `{status: true, data}` or as a bare array, per the royaltiesShape knob. */
function list({ knobs }: RouteContext, items: unknown[]): Reply {
  return ok(knobs.royaltiesShape === "wrapped" ? { status: true, data: items } : items);
}

export const royaltiesRoutes: Route[] = [
  {
    method: "GET",
    path: `${PREFIX}/payouts`,
    operation: "royalties.listPayouts",
    handle: (context) => list(context, context.data.payouts()),
  },
  {
    method: "POST",
    path: `${PREFIX}/payouts`,
    operation: "royalties.requestPayout",
    handle: ({ body, headers, data }) => {
      const params = parseParams(body(), {
        amount: required(amount(MINIMUM_AMOUNT_CENTS)),
        idempotency_key: optional(text, undefined),
      });
      // The header wins over the body field when a client sends both.
      const header = headers["idempotency-key"];
      const key = (Array.isArray(header) ? header[0] : header) ?? params.idempotency_key;
      const outcome = data.requestPayout(params.amount, key);
      if (outcome.kind === "refused") {
        return json(400, { status: false, message: outcome.message, type: outcome.type });
      }
      const payout = outcome.payout;
      return ok({
        status: true,
        payout,
        withdrawal_type: REQUEST_WITHDRAWAL,
        message: "Payout requested",
      });
    },
  },
  {
    method: "POST",
    path: `${PREFIX}/setThreshold`,
    operation: "royalties.setThreshold",
    handle: ({ body, data }) => {
      const params = parseParams(body(), { amount: required(amount(MINIMUM_AMOUNT_CENTS)) });
      const threshold = data.setThreshold(params.amount);
      return ok({ status: true, message: "Threshold updated", threshold });
    },
  },
  {
    method: "GET",
    path: `${PREFIX}/payouts/pending`,
    operation: "royalties.listPendingPayouts",
    handle: (context) => list(context, context.data.pendingPayouts()),
  },
  {
    method: "POST",
    path: `${PREFIX}/payouts/set-monthly-type`,
    operation: "royalties.setMonthlyType",
    handle: ({ data }) => {
      data.setWithdrawalType(MONTHLY_WITHDRAWAL);
      return ok({
        status: true,
        message: "Withdrawal type set to monthly",
        withdrawal_type: MONTHLY_WITHDRAWAL,
      });
    },
  },
  {
    method: "GET",
    path: `${PREFIX}/incomes`,
    operation: "royalties.listIncomes",
    handle: (context) => list(context, context.data.incomes()),
  },
  {
    method: "GET",
    path: `${PREFIX}/invoice`,
    operation: "royalties.getInvoice",
    handle: ({ data }) => ok(data.invoice()),
  },
];
