import { getTerritories, type Territory } from "../../api/operations/catalogue.js";
import { listRead, single } from "../list-read.js";
import { NO_PAGING } from "../paging.js";
import { defineStream } from "../stream.js";
import { type LookupPartition, lookupPartitions } from "./lookups.js";

/** Territories by each configured key (a bare, unpaged list). */
export const territories = defineStream<LookupPartition, Territory>({
  name: "territories",
  family: "catalogue",
  paging: NO_PAGING,
  partitions: ({ config }) => lookupPartitions("key", config.territory_keys),
  fetch: async (_context, { value }, page) => [await page.exchange(getTerritories, { key: value })],
  read: (exchanges) => listRead(getTerritories.parse(single(exchanges).body)),
  outputs: [
    {
      target: {
        table: "catalogue.territories",
        key: ["code"],
      },
      mode: "upsert",
      // The id is the same two-letter code: it stands in when `code` is missing.
      rows: ({ id, name, code, raw }) => [{ code: code ?? id, territory_id: id, name, raw }],
    },
  ],
});
