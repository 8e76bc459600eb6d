import { MINIMUM_AMOUNT_CENTS } from "../../dataset/royalties.js";
import { PREFIX, REQUEST_WITHDRAWAL } from "../../families/royalties.js";
import { sandboxRoute } from "../../http/endpoint-route.js";
import { amount, optional, parseParams, required, text } from "../../http/params.js";
import { json, ok } from "../../http/reply.js";

export default sandboxRoute({
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
});
