import { getDsps, type Dsp } from "../../api/operations/catalogue.js";
import { listRead, single } from "../list-read.js";
import { NO_PAGING } from "../paging.js";
import { defineStream } from "../stream.js";
import { type LookupPartition, lookupPartitions } from "./lookups.js";

/** DSPs by each configured key (a bare, unpaged list). */
export const dsps = defineStream<LookupPartition, Dsp>({
  name: "dsps",
  family: "catalogue",
  paging: NO_PAGING,
  partitions: ({ config }) => lookupPartitions("key", config.dsp_keys),
  fetch: async (_context, { value }, page) => [await page.exchange(getDsps, { key: value })],
  read: (exchanges) => listRead(getDsps.parse(single(exchanges).body)),
  outputs: [
    {
      target: {
        table: "catalogue.dsps",
        key: ["dsp_id"],
      },
      mode: "upsert",
      rows: ({ id, name, code, state, raw }) => [{ dsp_id: id, name, code, state, raw }],
    },
  ],
});
