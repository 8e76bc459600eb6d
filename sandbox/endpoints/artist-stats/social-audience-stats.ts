import { AUDIENCE_DOMAINS, AUDIENCE_TYPES, STATS_TYPES } from "../../dataset/audience.js";
import {
  offset,
  PREFIX,
  socialArtist,
  todayOf,
  window,
  wrapped,
} from "../../families/artist-stats.js";
import { sandboxRoute } from "../../http/endpoint-route.js";
import { pageOf } from "../../http/paging.js";
import { integer, oneOf, optional, parseParams } from "../../http/params.js";
import { servedLimit } from "../../shapes.js";

export default sandboxRoute({
  method: "GET",
  path: `${PREFIX}/social-audience-stats`,
  operation: "artistStats.socialAudienceStats",
  handle: (context) => {
    const artist = socialArtist(context);
    const params = parseParams(context.query, {
      domain: optional(oneOf(AUDIENCE_DOMAINS), "social_3"),
      audienceType: optional(oneOf(AUDIENCE_TYPES), "followers"),
      statsType: optional(oneOf(STATS_TYPES), "country"),
      offset,
      limit: optional(integer(1, 100), 10),
    });
    // A snapshot as of `until`; since is validated with it but selects nothing.
    const { until } = window(context.query, todayOf(context.data));
    const rows = context.data.socialAudienceStats(
      artist.cm_artist,
      params.domain,
      params.audienceType,
      params.statsType,
      until,
    );
    return wrapped(pageOf(rows, params.offset, servedLimit(params.limit, context.knobs.shapes)));
  },
});
