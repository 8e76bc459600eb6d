import { matchesKey } from "../../families/catalogue.js";
import { sandboxRoute } from "../../http/endpoint-route.js";
import { ok } from "../../http/reply.js";

export default sandboxRoute({
  method: "GET",
  path: "/api/v1/getTerritories/:key",
  operation: "catalogue.getTerritories",
  handle: ({ params, data }) =>
    ok(
      data
        .territories()
        .filter((territory) => matchesKey(params.key ?? "", territory.name, territory.code)),
    ),
});
