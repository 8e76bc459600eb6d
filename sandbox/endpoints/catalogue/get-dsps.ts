import { matchesKey } from "../../families/catalogue.js";
import { sandboxRoute } from "../../http/endpoint-route.js";
import { ok } from "../../http/reply.js";

export default sandboxRoute({
  method: "GET",
  path: "/api/v1/getDsps/:key",
  operation: "catalogue.getDsps",
  handle: ({ params, data }) =>
    ok(data.dsps().filter((dsp) => matchesKey(params.key ?? "", dsp.name, dsp.code))),
});
