import type { z } from "zod";
import type { Exchange } from "../../api/api-client.js";
import type { Operation } from "../../api/operation.js";
import type { BodyCursor } from "../paging.js";
import type { Cursor, FetchContext } from "../stream.js";

/**
 * A page of a royalties list: the list as asked with no paging, then whatever its body said of
 * the next page: a page number to ask for, or a link to follow (on the upstream's own origin).
 */
export async function fetchBodyPaged(
  { api, call }: FetchContext,
  operation: Operation<z.ZodType<{ page?: number }>, unknown>,
  cursor: Cursor,
): Promise<Exchange[]> {
  const at = cursor as BodyCursor;
  if (at !== null && "link" in at) return [await api.follow(operation, at.link, call)];
  return [await api.exchange(operation, at === null ? {} : { page: at.page }, call)];
}
