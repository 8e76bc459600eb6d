import type { Territory } from "../../api/operations/catalogue.js";
import { defineStream } from "../stream.js";
import { type LookupPartition, lookupPartitions } from "./lookup-paging.js";

/** Territories by each configured key (a bare, unpaged list). */
export const territories = defineStream<LookupPartition, Territory>({
  name: "territories",
  family: "catalogue",
  partitions: ({ config }) => lookupPartitions("key", config.territory_keys),
  fetch: async ({ api, call }, { value }) => ({
    records: (await api.catalogue.getTerritories({ key: value }, call)).records,
    next: null,
  }),
  outputs: [
    {
      target: {
        table: "catalogue.territories",
        key: ["code"],
        columns: ["territory_id", "name", "raw"],
      },
      mode: "upsert",
      // The id is the same two-letter code: it stands in when `code` is missing.
      rows: ({ id, name, code, raw }) => [{ code: code ?? id, territory_id: id, name, raw }],
    },
  ],
});
