import { artist_id, PREFIX, wrapped } from "../../families/artist-stats.js";
import { sandboxRoute } from "../../http/endpoint-route.js";
import { parseParams } from "../../http/params.js";

export default sandboxRoute({
  method: "GET",
  path: `${PREFIX}/artist-id-from-identifiers`,
  operation: "artistStats.artistIdFromIdentifiers",
  handle: ({ query, data }) => {
    const { artist_id: id } = parseParams(query, { artist_id });
    return wrapped(data.socialArtists().find((artist) => artist.artist_id === id) ?? null);
  },
});
