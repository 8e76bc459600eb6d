/**
 * Label values are names chosen by the code (operations, streams, statuses), but a label is
 * exported to every scraper: anything outside a name's alphabet is replaced, so a URL or a
 * header value can never reach one whole, and the length is capped against cardinality accidents.
 */
export function label(value: string): string {
  return value.replace(/[^A-Za-z0-9_.-]/g, "_").slice(0, 100);
}
