import { toInteger, toText, toBoolean, toDay } from "../../api/read-values.js";
import { getProductByUpc, type Product } from "../../api/operations/catalogue.js";
import { listRead, single } from "../list-read.js";
import { defineStream } from "../stream.js";
import { LOOKUP_PAGING, type LookupPartition, lookupPartitions } from "./lookups.js";

/** Products by each configured UPC (a substring search), with their assets. */
export const products = defineStream<LookupPartition, Product, typeof LOOKUP_PAGING>({
  name: "products",
  family: "catalogue",
  paging: LOOKUP_PAGING,
  partitions: ({ config }) => lookupPartitions("upc", config.upcs),
  fetch: async (_context, { value }, page) => [
    await page.exchange(getProductByUpc, { upc: value }),
  ],
  read: (exchanges) => listRead(getProductByUpc.parse(single(exchanges).body)),
  outputs: [
    {
      target: {
        table: "catalogue.products",
        key: ["product_id"],
      },
      mode: "upsert",
      rows: ({ id, upc, raw }) => [
        {
          product_id: id,
          upc,
          title: toText(raw.title),
          label_name: toText(raw.label),
          label_id: toInteger(raw.label_id),
          release_date: toDay(raw.release_date),
          artist_id: toInteger(raw.artist_id),
          artist_name: toText(raw.artist_name),
          genre: toText(raw.genre),
          format: toText(raw.format),
          raw,
        },
      ],
    },
    {
      target: {
        table: "catalogue.assets",
        key: ["asset_id"],
      },
      mode: "upsert",
      rows: (product) =>
        product.assets.map(({ id, isrc, raw }) => ({
          asset_id: id,
          product_id: product.id,
          isrc,
          title: toText(raw.title),
          duration_seconds: toInteger(raw.duration),
          track_number: toInteger(raw.track_number),
          explicit: toBoolean(raw.explicit),
          raw,
        })),
    },
  ],
});
