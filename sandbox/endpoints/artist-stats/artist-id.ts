import { PREFIX, wrapped } from "../../families/artist-stats.js";
import { sandboxRoute } from "../../http/endpoint-route.js";
import { parseParams, required, text } from "../../http/params.js";

export default sandboxRoute({
  method: "GET",
  path: `${PREFIX}/artist-id`,
  operation: "artistStats.artistId",
  handle: ({ query, data }) => {
    const { id } = parseParams(query, { id: required(text) });
    return wrapped(data.socialArtists().filter((artist) => artist.music_streaming_1 === id));
  },
});
