import { list, PREFIX } from "../../families/royalties.js";
import { sandboxRoute } from "../../http/endpoint-route.js";
import { incomeRecords } from "../../shapes.js";

export default sandboxRoute({
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
});
