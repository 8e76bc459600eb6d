import { pageOf } from "../http/paging.js";
import { integer, optional, parseParams } from "../http/params.js";
import { ok, type Reply } from "../http/reply.js";
import type { Route } from "../http/router.js";

const PAGING = { page: optional(integer(0), 0), page_size: optional(integer(1, 100), 25) };

/** The lookup envelope: `{page, page_size, total, ...extra, [key]: page of matches}`. */
function lookupPage(
  query: Record<string, string>,
  key: "product" | "artist",
  matches: readonly unknown[],
  extra: Record<string, unknown> = {},
): Reply {
  const { page, page_size } = parseParams(query, PAGING);
  return ok({
    page,
    page_size,
    total: matches.length,
    ...extra,
    [key]: pageOf(matches, page * page_size, page_size),
  });
}

/** Case-insensitive substring search over the given fields; the key "all" matches everything. */
function matchesKey(key: string, ...fields: (string | null)[]): boolean {
  const needle = key.toLowerCase();
  return needle === "all" || fields.some((field) => field?.toLowerCase().includes(needle));
}

export const catalogueRoutes: Route[] = [
  {
    method: "GET",
    path: "/api/v1/getproductByupc/:upc",
    operation: "catalogue.getProductByUpc",
    handle: ({ params, query, data }) => {
      const upc = params.upc ?? "";
      const products = data.products().filter((product) => product.upc.includes(upc));
      return lookupPage(query, "product", products, { search: upc });
    },
  },
  {
    method: "GET",
    path: "/api/v1/getArtistByName/:name",
    operation: "catalogue.getArtistByName",
    handle: ({ params, query, data }) => {
      const name = (params.name ?? "").toLowerCase();
      const artists = data.artists().filter((artist) => artist.name.toLowerCase().includes(name));
      return lookupPage(query, "artist", artists);
    },
  },
  {
    method: "GET",
    path: "/api/v1/getTerritories/:key",
    operation: "catalogue.getTerritories",
    handle: ({ params, data }) =>
      ok(
        data
          .territories()
          .filter((territory) => matchesKey(params.key ?? "", territory.name, territory.code)),
      ),
  },
  {
    method: "GET",
    path: "/api/v1/getDsps/:key",
    operation: "catalogue.getDsps",
    handle: ({ params, data }) =>
      ok(data.dsps().filter((dsp) => matchesKey(params.key ?? "", dsp.name, dsp.code))),
  },
];
