import { toInteger, toText, toBoolean, toDay } from "../../api/read-values.js";
import { getProductByUpc, type Product } from "../../api/operations/catalogue.js";
import { listRead, single } from "../list-read.js";
import { defineStream } from "../stream.js";
import { type LookupPartition, lookupPaging, lookupPartitions } from "./lookup-paging.js";

/** Products by each configured UPC (a substring search), with their assets. */
export const products = defineStream<LookupPartition, Product, number>({
  name: "products",
  family: "catalogue",
  paging: lookupPaging,
  partitions: ({ config }) => lookupPartitions("upc", config.upcs),
  fetch: async ({ api, call }, { value }, cursor) => [
    await api.exchange(getProductByUpc, { upc: value, ...lookupPaging.params(cursor) }, call),
  ],
  read: (exchanges, _partition, cursor, context) => {
    const result = getProductByUpc.parse(single(exchanges).body);
    return listRead(result, context, lookupPaging.next(cursor, result, context));
  },
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
