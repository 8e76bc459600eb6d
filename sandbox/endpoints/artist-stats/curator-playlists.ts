import { CURATOR_PLATFORMS } from "../../dataset/playlists.js";
import { offset, PREFIX, socialArtist, wrapped } from "../../families/artist-stats.js";
import { sandboxRoute } from "../../http/endpoint-route.js";
import { pageOf } from "../../http/paging.js";
import { integer, oneOf, optional, parseParams } from "../../http/params.js";
import { servedLimit } from "../../shapes.js";

export default sandboxRoute({
  method: "GET",
  path: `${PREFIX}/curator-playlists`,
  operation: "artistStats.curatorPlaylists",
  handle: (context) => {
    const artist = socialArtist(context);
    const params = parseParams(context.query, {
      platform: optional(oneOf(CURATOR_PLATFORMS), "music_streaming_1"),
      offset,
      limit: optional(integer(1, 100), 50),
    });
    const entries = context.data.curatorPlaylists(artist.cm_artist, params.platform);
    return wrapped(pageOf(entries, params.offset, servedLimit(params.limit, context.knobs.shapes)));
  },
});
