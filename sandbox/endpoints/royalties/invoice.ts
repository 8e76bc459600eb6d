import { PREFIX } from "../../families/royalties.js";
import { sandboxRoute } from "../../http/endpoint-route.js";
import { ok } from "../../http/reply.js";
import { objectBody } from "../../shapes.js";

export default sandboxRoute({
  method: "GET",
  path: `${PREFIX}/invoice`,
  operation: "royalties.getInvoice",
  handle: ({ data, knobs }) => ok(objectBody(data.invoice(), knobs.shapes, "invoice")),
});
