import { z } from "zod";
import { API_PREFIX, defineOperation, segment } from "../../api/operation.js";
import { nonEmptyText } from "../../api/params.js";
import { toRecordList } from "../../api/results.js";
import { toInteger, toText } from "../../api/read-values.js";
import { endpointStream } from "../endpoint-stream.js";
import { lookups } from "./lookups.js";

export const getDspsOperation = defineOperation({
  name: "catalogue.getDsps",
  params: z.object({ key: nonEmptyText }),
  request: ({ key }) => ({ method: "GET", path: `${API_PREFIX}/getDsps/${segment(key)}` }),
  parse: toRecordList,
});

/** DSPs by each configured key (a bare, unpaged list). */
export const dsps = endpointStream({
  name: "dsps",
  family: "catalogue",
  partitions: lookups("key", (config) => config.dsp_keys),
  operation: getDspsOperation,
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
