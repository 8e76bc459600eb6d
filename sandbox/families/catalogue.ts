// What the catalogue's look-ups share: the envelope of a page of matches, and a key's match.
import { pageOf } from "../http/paging.js";
import { integer, optional, parseParams } from "../http/params.js";
import { ok, type Reply } from "../http/reply.js";

const PAGING = { page: optional(integer(0), 0), page_size: optional(integer(1, 100), 25) };

/** The lookup envelope: `{page, page_size, total, ...extra, [key]: page of matches}`. */
export function lookupPage(
  query: Record<string, string>,
  key: "product" | "artist",
  matches: readonly unknown[],
  extra: Record<string, unknown> = {},
): Reply {
  const { page, page_size } = parseParams(query, PAGING);
  return ok({
    page,
    page_size,
    total: matches.length,
    ...extra,
    [key]: pageOf(matches, page * page_size, page_size),
  });
}

/** Case-insensitive substring search over the given fields; the key "all" matches everything. */
export function matchesKey(key: string, ...fields: (string | null)[]): boolean {
  const needle = key.toLowerCase();
  return needle === "all" || fields.some((field) => field?.toLowerCase().includes(needle));
}
