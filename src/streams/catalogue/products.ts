import { getProductByUpc } from "../../api/operations/catalogue.js";
import { recordsOf } from "../../api/list-page.js";
import { toInteger, toText, toBoolean, toDay } from "../../api/read-values.js";
import { endpointStream } from "../endpoint-stream.js";
import { LOOKUP_PAGING, lookups } from "./lookups.js";

/** Products by each configured UPC (a substring search), with their assets. */
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
    title: toText(product.title),
    label_name: toText(product.label),
    label_id: toInteger(product.label_id),
    release_date: toDay(product.release_date),
    artist_id: toInteger(product.artist_id),
    artist_name: toText(product.artist_name),
    genre: toText(product.genre),
    format: toText(product.format),
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
        title: toText(asset.title),
        duration_seconds: toInteger(asset.duration),
        track_number: toInteger(asset.track_number),
        explicit: toBoolean(asset.explicit),
      }),
    },
  ],
});
