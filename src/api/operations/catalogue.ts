import { z } from "zod";
import { toInteger } from "../read-values.js";
import { asRecord } from "../../json/json-record.js";
import { type RecordList, toRecordList } from "../results.js";
import { API_PREFIX, defineOperation, segment } from "../operation.js";
import { nonEmptyText, offset } from "../params.js";

/**
 * A page of a look-up: the list under the entity's name in `{page, page_size, total, <entity>:
 * [...]}`, or the body itself when it is the list; the envelope's total and page size say how
 * far the list goes.
 */
function lookupPage(body: unknown, entity: string): RecordList {
  const envelope = asRecord(body) ?? {};
  const { list, ...records } = toRecordList(entity in envelope ? envelope[entity] : body);
  return {
    ...records,
    list: {
      ...list,
      total: toInteger(envelope.total) ?? list.total,
      pageSize: toInteger(envelope.page_size),
    },
    raw: body,
  };
}

/** Lookups page with `page` (0-based) and `page_size`, as the envelope they answer with. */
const paging = {
  page: offset.optional(),
  page_size: z.number().int("must be a whole number").min(1, "must be at least 1").optional(),
};

export const getProductByUpc = defineOperation({
  name: "catalogue.getProductByUpc",
  params: z.object({ upc: nonEmptyText, ...paging }),
  request: ({ upc, page, page_size }) => ({
    method: "GET",
    path: `${API_PREFIX}/getproductByupc/${segment(upc)}`,
    query: { page, page_size },
  }),
  parse: (body) => lookupPage(body, "product"),
});

export const getArtistByName = defineOperation({
  name: "catalogue.getArtistByName",
  params: z.object({ name: nonEmptyText, ...paging }),
  request: ({ name, page, page_size }) => ({
    method: "GET",
    path: `${API_PREFIX}/getArtistByName/${segment(name)}`,
    query: { page, page_size },
  }),
  parse: (body) => lookupPage(body, "artist"),
});

export const getTerritories = defineOperation({
  name: "catalogue.getTerritories",
  params: z.object({ key: nonEmptyText }),
  request: ({ key }) => ({ method: "GET", path: `${API_PREFIX}/getTerritories/${segment(key)}` }),
  parse: toRecordList,
});

export const getDsps = defineOperation({
  name: "catalogue.getDsps",
  params: z.object({ key: nonEmptyText }),
  request: ({ key }) => ({ method: "GET", path: `${API_PREFIX}/getDsps/${segment(key)}` }),
  parse: toRecordList,
});

export const catalogueOperations = { getProductByUpc, getArtistByName, getTerritories, getDsps };
