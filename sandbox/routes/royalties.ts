import { MINIMUM_AMOUNT_CENTS } from "../dataset/royalties.js";
import { amount, integer, optional, parseParams, required, text } from "../http/params.js";
import { json, ok, type Reply } from "../http/reply.js";
import type { Route, RouteContext } from "../http/router.js";
import { incomeRecords, objectBody } from "../shapes.js";

const PREFIX = "/api/v1";
const REQUEST_WITHDRAWAL = 1;
const MONTHLY_WITHDRAWAL = 2;

/**
 * Lists come as `{status: true, data}` or as a bare array, per the royaltiesShape knob, or as
 * `{status: true, <name>: items}` under shapes.namedObjects; or, when shapes.royaltiesPaging is
 * set, paged by a 1-based `page` query parameter in that style (always under `data`).
 */
function list(context: RouteContext, path: string, name: string, items: unknown[]): Reply {
  const { knobs } = context;
  if (knobs.shapes.royaltiesPaging === "none") {
    if (knobs.shapes.namedObjects) return ok({ status: true, [name]: items });
    return ok(knobs.royaltiesShape === "wrapped" ? { status: true, data: items } : items);
  }
  const { page } = parseParams(context.query, { page: optional(integer(1), 1) });
  const size = knobs.shapes.royaltiesPageSize;
  const lastPage = Math.max(1, Math.ceil(items.length / size));
  const data = items.slice((page - 1) * size, page * size);
  // Links name the origin the client reached, as a server behind its own host name does.
  const host = context.headers.host ?? "127.0.0.1";
  const pageUrl = `http://${host}${path}`;
  const nextUrl = `${knobs.shapes.foreignNextLink ?? `http://${host}`}${path}`;
  const next = page < lastPage ? `${nextUrl}?page=${page + 1}` : null;
  switch (knobs.shapes.royaltiesPaging) {
    case "page-number":
      return ok({ status: true, data, current_page: page, last_page: lastPage });
    case "next-link":
      return ok({ status: true, data, links: { next } });
    case "laravel": {
      const first = (page - 1) * size;
      return ok({
        current_page: page,
        data,
        first_page_url: `${pageUrl}?page=1`,
        from: data.length > 0 ? first + 1 : null,
        last_page: lastPage,
        last_page_url: `${pageUrl}?page=${lastPage}`,
        next_page_url: next,
        path: pageUrl,
        per_page: size,
        prev_page_url: page > 1 ? `${pageUrl}?page=${page - 1}` : null,
        to: data.length > 0 ? first + data.length : null,
        total: items.length,
      });
    }
  }
}

export const royaltiesRoutes: Route[] = [
  {
    method: "GET",
    path: `${PREFIX}/payouts`,
    operation: "royalties.listPayouts",
    handle: (context) => list(context, `${PREFIX}/payouts`, "payouts", context.data.payouts()),
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
    handle: (context) =>
      list(context, `${PREFIX}/payouts/pending`, "pending_payouts", context.data.pendingPayouts()),
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
    handle: (context) =>
      list(
        context,
        `${PREFIX}/incomes`,
        "incomes",
        incomeRecords(context.data.incomes(), context.knobs.shapes),
      ),
  },
  {
    method: "GET",
    path: `${PREFIX}/invoice`,
    operation: "royalties.getInvoice",
    handle: ({ data, knobs }) => ok(objectBody(data.invoice(), knobs.shapes, "invoice")),
  },
];
