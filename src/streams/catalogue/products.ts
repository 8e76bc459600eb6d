import { z } from "zod";
import { API_PREFIX, defineOperation, segment } from "../../api/operation.js";
import { nonEmptyText } from "../../api/params.js";
import { recordsOf } from "../../api/list-page.js";
import { toInteger, toText } from "../../api/read-values.js";
import { endpointStream } from "../endpoint-stream.js";
import { LOOKUP_PAGING, LOOKUP_PARAMS, lookupPage, lookups } from "./lookups.js";

/** The products whose UPC contains `upc`, with their assets. */
export const getProductByUpcOperation = defineOperation({
  name: "catalogue.getProductByUpc",
  params: z.object({ upc: nonEmptyText, ...LOOKUP_PARAMS }),
  request: ({ upc, page, page_size }) => ({
    method: "GET",
    path: `${API_PREFIX}/getproductByupc/${segment(upc)}`,
    query: { page, page_size },
  }),
  parse: (body) => lookupPage(body, "product"),
});

/**
 * Products by each configured UPC (a substring search), with their assets. The spec shows a
 * product's id, upc and assets and an asset's id and isrc: every other field is a discovered
 * column, named as the upstream names it.
 */
export const products = endpointStream({
  name: "products",
  family: "catalogue",
  partitions: lookups("upc", (config) => config.upcs),
  operation: getProductByUpcOperation,
  params: ({ value }) => ({ upc: value }),
  paging: LOOKUP_PAGING,
  records: "list",
  table: "catalogue.products",
  key: ["product_id"],
  mode: "upsert",
  columns: (product) => ({
    product_id: toInteger(product.id),
    upc: toText(product.upc),
  }),
  nested: [
    {
      table: "catalogue.assets",
      key: ["asset_id"],
      records: (product) => recordsOf(product.assets),
      columns: (asset, product) => ({
        asset_id: toInteger(asset.id),
        product_id: toInteger(product.id),
        isrc: toText(asset.isrc),
      }),
    },
  ],
});
