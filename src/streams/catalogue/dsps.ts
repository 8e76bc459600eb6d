import { getDsps } from "../../api/operations/catalogue.js";
import { toInteger, toText } from "../../api/read-values.js";
import { endpointStream } from "../endpoint-stream.js";
import { lookups } from "./lookups.js";

/** DSPs by each configured key (a bare, unpaged list). */
export const dsps = endpointStream({
  name: "dsps",
  family: "catalogue",
  partitions: lookups("key", (config) => config.dsp_keys),
  operation: getDsps,
  params: ({ value }) => ({ key: value }),
  records: "list",
  table: "catalogue.dsps",
  key: ["dsp_id"],
  mode: "upsert",
  columns: (dsp) => ({
    dsp_id: toInteger(dsp.id),
    name: toText(dsp.name),
    code: toText(dsp.code),
    state: toText(dsp.state),
  }),
});
