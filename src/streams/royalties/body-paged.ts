import type { z } from "zod";
import type { Exchange } from "../../api/api-client.js";
import type { ListPage } from "../../api/list-page.js";
import type { Operation } from "../../api/operation.js";
import { type BodyCursor, nextFromBody, type Paging, type PagingStep } from "../paging.js";
import type { FetchContext, ReadContext } from "../stream.js";

interface BodyPaging extends Paging {
  /**
   * A page of a royalties list: the list as asked with no paging, then whatever its body said
   * of the next page: a page number to ask for, or a link to follow (on the upstream's own origin).
   */
  fetch(
    context: FetchContext,
    operation: Operation<z.ZodType<{ page?: number }>, unknown>,
    cursor: BodyCursor | null,
  ): Promise<Exchange>;
  next(list: ListPage, context: ReadContext): PagingStep<BodyCursor>;
}

/** The royalties lists' paging: as each body says (a next link, else a page number). */
export const bodyPaging: BodyPaging = {
  style: "next link",
  fetch: ({ api, call }, operation, cursor) =>
    cursor !== null && "link" in cursor
      ? api.follow(operation, cursor.link, call)
      : api.exchange(operation, cursor === null ? {} : { page: cursor.page }, call),
  next: nextFromBody,
};
