import { addedWithin, EDITORIAL_PLATFORMS, PLAYLIST_STATUSES } from "../../dataset/playlists.js";
import { offset, PREFIX, socialArtist, wrapped } from "../../families/artist-stats.js";
import { sandboxRoute } from "../../http/endpoint-route.js";
import { pageOf } from "../../http/paging.js";
import { date, integer, oneOf, optional, parseParams } from "../../http/params.js";
import { servedLimit } from "../../shapes.js";

export default sandboxRoute({
  method: "GET",
  path: `${PREFIX}/editorial-playlists`,
  operation: "artistStats.editorialPlaylists",
  handle: (context) => {
    const artist = socialArtist(context);
    const params = parseParams(context.query, {
      platform: optional(oneOf(EDITORIAL_PLATFORMS), "music_streaming_1"),
      status: optional(oneOf(PLAYLIST_STATUSES), "current"),
      since: optional(date, null),
      until: optional(date, null),
      offset,
      limit: optional(integer(1, 100), 50),
    });
    const entries = context.data.editorialPlaylists(
      artist.cm_artist,
      params.platform,
      params.status,
    );
    const limit = servedLimit(params.limit, context.knobs.shapes);
    return wrapped(pageOf(addedWithin(entries, params.since, params.until), params.offset, limit));
  },
});
