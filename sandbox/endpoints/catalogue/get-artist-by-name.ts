import { lookupPage } from "../../families/catalogue.js";
import { sandboxRoute } from "../../http/endpoint-route.js";

export default sandboxRoute({
  method: "GET",
  path: "/api/v1/getArtistByName/:name",
  operation: "catalogue.getArtistByName",
  handle: ({ params, query, data }) => {
    const name = (params.name ?? "").toLowerCase();
    const artists = data.artists().filter((artist) => artist.name.toLowerCase().includes(name));
    return lookupPage(query, "artist", artists);
  },
});
