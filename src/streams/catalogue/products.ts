import { getProductByUpc } from "../../api/operations/catalogue.js";
import { recordsOf } from "../../api/list-page.js";
import { toInteger, toText } from "../../api/read-values.js";
import { endpointStream } from "../endpoint-stream.js";
import { LOOKUP_PAGING, lookups } from "./lookups.js";

/**
 * Products by each configured UPC (a substring search), with their assets. The spec shows a
 * product's id, upc and assets and an asset's id and isrc: every other field is a discovered
 * column, named as the upstream names it.
 */
export const products = endpointStream({
  name: "products",
  family: "catalogue",
  partitions: lookups("upc", (config) => config.upcs),
  operation: getProductByUpc,
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
