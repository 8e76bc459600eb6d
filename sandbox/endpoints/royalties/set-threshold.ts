import { MINIMUM_AMOUNT_CENTS } from "../../dataset/royalties.js";
import { PREFIX } from "../../families/royalties.js";
import { sandboxRoute } from "../../http/endpoint-route.js";
import { amount, parseParams, required } from "../../http/params.js";
import { ok } from "../../http/reply.js";

export default sandboxRoute({
  method: "POST",
  path: `${PREFIX}/setThreshold`,
  operation: "royalties.setThreshold",
  handle: ({ body, data }) => {
    const params = parseParams(body(), { amount: required(amount(MINIMUM_AMOUNT_CENTS)) });
    const threshold = data.setThreshold(params.amount);
    return ok({ status: true, message: "Threshold updated", threshold });
  },
});
