import { z } from "zod";
import { toInteger, toText } from "../read-values.js";
import { asRecord, type JsonRecord } from "../../json/json-record.js";
import { type ListPage, readListPage, recordsOf } from "../list-page.js";
import { splitItems } from "../results.js";
import { API_PREFIX, defineOperation, segment } from "../operation.js";
import { nonEmptyText, offset } from "../params.js";

export interface Asset {
  readonly id: number | null;
  readonly isrc: string | null;
  readonly raw: JsonRecord;
}

export interface Product {
  readonly id: number | null;
  readonly upc: string | null;
  readonly assets: readonly Asset[];
  readonly raw: JsonRecord;
}

export interface CatalogueArtist {
  readonly id: number | null;
  readonly name: string | null;
  readonly organizationId: number | null;
  readonly proprietaryId: string | null;
  readonly raw: JsonRecord;
}

export interface Territory {
  readonly id: string | null;
  readonly name: string | null;
  readonly code: string | null;
  readonly raw: JsonRecord;
}

export interface Dsp {
  readonly id: number | null;
  readonly name: string | null;
  readonly code: string | null;
  readonly state: string | null;
  readonly raw: JsonRecord;
}

/** A page of a lookup envelope `{page, page_size, total, <entity>: [...]}`. */
export interface LookupPage<T> {
  readonly page: number | null;
  readonly total: number | null;
  readonly records: readonly T[];
  /** Items of the list that are not objects. */
  readonly others: readonly unknown[];
  readonly list: ListPage;
  readonly raw: unknown;
}

/** A plain list of records (territories, DSPs). */
export interface LookupList<T> {
  readonly records: readonly T[];
  readonly others: readonly unknown[];
  readonly list: ListPage;
}

function lookupList<T>(body: unknown, toRecord: (raw: JsonRecord) => T): LookupList<T> {
  const list = readListPage(body);
  const { records, others } = splitItems(list.items);
  return { records: records.map(toRecord), others, list };
}

function lookupPage<T>(
  body: unknown,
  key: string,
  toRecord: (raw: JsonRecord) => T,
): LookupPage<T> {
  const envelope = asRecord(body) ?? {};
  const { records, others, list } = lookupList(key in envelope ? envelope[key] : body, toRecord);
  return {
    page: toInteger(envelope.page),
    total: toInteger(envelope.total) ?? list.total,
    records,
    others,
    list: {
      ...list,
      total: toInteger(envelope.total) ?? list.total,
      pageSize: toInteger(envelope.page_size),
    },
    raw: body,
  };
}

function toAsset(raw: JsonRecord): Asset {
  return { id: toInteger(raw.id), isrc: toText(raw.isrc), raw };
}

function toProduct(raw: JsonRecord): Product {
  return {
    id: toInteger(raw.id),
    upc: toText(raw.upc),
    assets: recordsOf(raw.assets).map(toAsset),
    raw,
  };
}

function toArtist(raw: JsonRecord): CatalogueArtist {
  return {
    id: toInteger(raw.id),
    name: toText(raw.name),
    organizationId: toInteger(raw.organization_id),
    proprietaryId: toText(raw.proprietary_id),
    raw,
  };
}

function toTerritory(raw: JsonRecord): Territory {
  return { id: toText(raw.id), name: toText(raw.name), code: toText(raw.code), raw };
}

function toDsp(raw: JsonRecord): Dsp {
  return {
    id: toInteger(raw.id),
    name: toText(raw.name),
    code: toText(raw.code),
    state: toText(raw.state),
    raw,
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
  parse: (body) => lookupPage(body, "product", toProduct),
});

export const getArtistByName = defineOperation({
  name: "catalogue.getArtistByName",
  params: z.object({ name: nonEmptyText, ...paging }),
  request: ({ name, page, page_size }) => ({
    method: "GET",
    path: `${API_PREFIX}/getArtistByName/${segment(name)}`,
    query: { page, page_size },
  }),
  parse: (body) => lookupPage(body, "artist", toArtist),
});

export const getTerritories = defineOperation({
  name: "catalogue.getTerritories",
  params: z.object({ key: nonEmptyText }),
  request: ({ key }) => ({ method: "GET", path: `${API_PREFIX}/getTerritories/${segment(key)}` }),
  parse: (body) => lookupList(body, toTerritory),
});

export const getDsps = defineOperation({
  name: "catalogue.getDsps",
  params: z.object({ key: nonEmptyText }),
  request: ({ key }) => ({ method: "GET", path: `${API_PREFIX}/getDsps/${segment(key)}` }),
  parse: (body) => lookupList(body, toDsp),
});

export const catalogueOperations = { getProductByUpc, getArtistByName, getTerritories, getDsps };
