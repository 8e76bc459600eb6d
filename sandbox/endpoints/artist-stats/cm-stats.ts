import { PREFIX, socialArtist, wrapped } from "../../families/artist-stats.js";
import { sandboxRoute } from "../../http/endpoint-route.js";
import { snapshotBody } from "../../shapes.js";

export default sandboxRoute({
  method: "GET",
  path: `${PREFIX}/cm-stats`,
  operation: "artistStats.cmStats",
  handle: (context) =>
    wrapped(
      snapshotBody(context.data.cmStats(socialArtist(context).cm_artist), context.knobs.shapes),
    ),
});
