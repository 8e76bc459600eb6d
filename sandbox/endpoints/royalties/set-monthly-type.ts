import { MONTHLY_WITHDRAWAL, PREFIX } from "../../families/royalties.js";
import { sandboxRoute } from "../../http/endpoint-route.js";
import { ok } from "../../http/reply.js";

export default sandboxRoute({
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
});
