// What the royalties' routes share: the prefix, the withdrawal types, and a list in the shape
// and paging the knobs choose.
import { integer, optional, parseParams } from "../http/params.js";
import { ok, type Reply } from "../http/reply.js";
import type { RouteContext } from "../http/router.js";

export const PREFIX = "/api/v1";
export const REQUEST_WITHDRAWAL = 1;
export const MONTHLY_WITHDRAWAL = 2;

/**
 * Lists come as `{status: true, data}` or as a bare array, per the royaltiesShape knob, or as
 * `{status: true, <name>: items}` under shapes.namedObjects; or, when shapes.royaltiesPaging is
 * set, paged by a 1-based `page` query parameter in that style (always under `data`).
 */
export function list(context: RouteContext, path: string, name: string, items: unknown[]): Reply {
  const { knobs } = context;
  if (knobs.shapes.royaltiesPaging === "none") {
    if (knobs.shapes.namedObjects) return ok({ status: true, [name]: items });
    return ok(knobs.royaltiesShape === "wrapped" ? { status: true, data: items } : items);
  }
  const { page } = parseParams(context.query, { page: optional(integer(1), 1) });
  const size = knobs.shapes.royaltiesPageSize;
  const lastPage = Math.max(1, Math.ceil(items.length / size));
  const data = items.slice((page - 1) * size, page * size);
  // Links name the origin the client reached, as a server behind its own host name does.
  const host = context.headers.host ?? "127.0.0.1";
  const pageUrl = `http://${host}${path}`;
  const nextUrl = `${knobs.shapes.foreignNextLink ?? `http://${host}`}${path}`;
  const next = page < lastPage ? `${nextUrl}?page=${page + 1}` : null;
  switch (knobs.shapes.royaltiesPaging) {
    case "page-number":
      return ok({ status: true, data, current_page: page, last_page: lastPage });
    case "next-link":
      return ok({ status: true, data, links: { next } });
    case "laravel": {
      const first = (page - 1) * size;
      return ok({
        current_page: page,
        data,
        first_page_url: `${pageUrl}?page=1`,
        from: data.length > 0 ? first + 1 : null,
        last_page: lastPage,
        last_page_url: `${pageUrl}?page=${lastPage}`,
        next_page_url: next,
        path: pageUrl,
        per_page: size,
        prev_page_url: page > 1 ? `${pageUrl}?page=${page - 1}` : null,
        to: data.length > 0 ? first + data.length : null,
        total: items.length,
      });
    }
  }
}
