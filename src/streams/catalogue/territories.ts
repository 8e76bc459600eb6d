import { getTerritories } from "../../api/operations/catalogue.js";
import { toText } from "../../api/read-values.js";
import { endpointStream } from "../endpoint-stream.js";
import { lookups } from "./lookups.js";

/** Territories by each configured key (a bare, unpaged list). */
export const territories = endpointStream({
  name: "territories",
  family: "catalogue",
  partitions: lookups("key", (config) => config.territory_keys),
  operation: getTerritories,
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
