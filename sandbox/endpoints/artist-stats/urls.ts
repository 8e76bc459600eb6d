// GET /api/v1/artist-stats/urls?artist_id=…: the artist's pages, a domain and an address each.
import { isEmptySource, STAT_SOURCES, sourceLink } from "../../dataset/stat-series.js";
import { sandboxEndpoint } from "../../http/endpoint-route.js";
import { integer, required } from "../../http/params.js";
import { knownSocialArtist } from "../../families/artist-stats.js";

interface ArtistUrl {
  readonly domain: string;
  readonly url: string;
}

const PARAMS = { artist_id: required(integer()) };

export default sandboxEndpoint({
  path: "/api/v1/artist-stats/urls",
  params: PARAMS,
  records: (data, { artist_id }): ArtistUrl[] => {
    const artist = knownSocialArtist(data, artist_id);
    const urls = [
      ...Object.keys(STAT_SOURCES)
        .filter((source) => !isEmptySource(data.seed, artist.cm_artist, source))
        .map((source) => ({ domain: source, url: sourceLink(artist, source) })),
      { domain: "website", url: `https://artist-${artist.cm_artist}.example.org/` },
    ];
    // Restated from revision 1 on, for the first artist: a link gone, another website listed.
    if (data.revision === 0 || artist.cm_artist !== data.socialArtists()[0]?.cm_artist) return urls;
    const added = { domain: "website", url: `https://www.artist-${artist.cm_artist}.example.net/` };
    return [...urls.slice(1), added];
  },
  otherShape: {
    // One record per domain, `url` the list of its links, in order of first appearance.
    variant: "url-arrays",
    serve: (urls) => {
      const byDomain = new Map<string, string[]>();
      for (const { domain, url } of urls) {
        const links = byDomain.get(domain) ?? [];
        links.push(url);
        byDomain.set(domain, links);
      }
      return [...byDomain].map(([domain, links]) => ({ domain, url: links }));
    },
  },
});
