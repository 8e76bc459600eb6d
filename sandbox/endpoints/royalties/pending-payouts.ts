import { list, PREFIX } from "../../families/royalties.js";
import { sandboxRoute } from "../../http/endpoint-route.js";

export default sandboxRoute({
  method: "GET",
  path: `${PREFIX}/payouts/pending`,
  operation: "royalties.listPendingPayouts",
  handle: (context) =>
    list(context, `${PREFIX}/payouts/pending`, "pending_payouts", context.data.pendingPayouts()),
});
