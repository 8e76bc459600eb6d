import { list, PREFIX } from "../../families/royalties.js";
import { sandboxRoute } from "../../http/endpoint-route.js";

export default sandboxRoute({
  method: "GET",
  path: `${PREFIX}/payouts`,
  operation: "royalties.listPayouts",
  handle: (context) => list(context, `${PREFIX}/payouts`, "payouts", context.data.payouts()),
});
