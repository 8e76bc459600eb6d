import { toText } from "../../api/read-values.js";
import { type JsonRecord } from "../../json/json-record.js";
import { getInvoice } from "../../api/operations/royalties.js";
import { endpointStream } from "../endpoint-stream.js";
import { stableKey } from "../stable-key.js";
import { WHOLE_LIST } from "./whole-list.js";

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
  operation: getInvoice,
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
