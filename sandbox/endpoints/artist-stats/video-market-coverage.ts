import { PREFIX, socialArtist, wrapped } from "../../families/artist-stats.js";
import { sandboxRoute } from "../../http/endpoint-route.js";
import { coverageBody } from "../../shapes.js";

export default sandboxRoute({
  method: "GET",
  path: `${PREFIX}/video-market-coverage`,
  operation: "artistStats.videoMarketCoverage",
  handle: (context) =>
    wrapped(
      coverageBody(
        context.data.videoMarketCoverage(socialArtist(context).cm_artist),
        context.knobs.shapes,
      ),
    ),
});
