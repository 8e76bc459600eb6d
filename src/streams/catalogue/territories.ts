import { z } from "zod";
import { API_PREFIX, defineOperation, segment } from "../../api/operation.js";
import { nonEmptyText } from "../../api/params.js";
import { toRecordList } from "../../api/results.js";
import { toText } from "../../api/read-values.js";
import { endpointStream } from "../endpoint-stream.js";
import { lookups } from "./lookups.js";

export const getTerritoriesOperation = defineOperation({
  name: "catalogue.getTerritories",
  params: z.object({ key: nonEmptyText }),
  request: ({ key }) => ({ method: "GET", path: `${API_PREFIX}/getTerritories/${segment(key)}` }),
  parse: toRecordList,
});

/** Territories by each configured key (a bare, unpaged list). */
export const territories = endpointStream({
  name: "territories",
  family: "catalogue",
  partitions: lookups("key", (config) => config.territory_keys),
  operation: getTerritoriesOperation,
  params: ({ value }) => ({ key: value }),
  records: "list",
  table: "catalogue.territories",
  key: ["code"],
  mode: "upsert",
  columns: (territory) => {
    const id = toText(territory.id);
    // The id is the same two-letter code: it stands in when `code` is missing.
    return { code: toText(territory.code) ?? id, territory_id: id, name: toText(territory.name) };
  },
});
