import { toText } from "../../api/read-values.js";
import { type JsonRecord } from "../../json/json-record.js";
import { z } from "zod";
import { API_PREFIX, defineOperation } from "../../api/operation.js";
import { type ObjectAnswer, toObjectAnswer } from "../../api/results.js";
import { endpointStream } from "../endpoint-stream.js";
import { stableKey } from "../stable-key.js";
import { WHOLE_LIST } from "./whole-list.js";

export const getInvoiceOperation = defineOperation({
  name: "royalties.getInvoice",
  params: z.object({}),
  request: () => ({ method: "GET", path: `${API_PREFIX}/invoice` }),
  parse: (body): ObjectAnswer => toObjectAnswer(body),
});

/** The invoice number, or a hash of the whole record when it has none. */
export function invoiceKey(invoice: JsonRecord): string {
  return toText(invoice.invoice_number) ?? stableKey(invoice);
}

/**
 * The current invoice, kept as a daily snapshot (the upstream only shows "now"). The spec shows
 * none of its fields: its columns but the key are discovered.
 */
export const invoices = endpointStream({
  name: "invoices",
  family: "royalties",
  partitions: WHOLE_LIST,
  operation: getInvoiceOperation,
  params: () => ({}),
  records: "object",
  table: "royalties.invoices",
  key: ["invoice_key", "snapshot_date"],
  // The whole run date is the partition: an invoice no longer shown disappears from that day.
  mode: "snapshot",
  columns: (invoice) => ({
    invoice_key: invoiceKey(invoice),
  }),
});
