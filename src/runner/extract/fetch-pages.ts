import type { z } from "zod";
import type { ApiClient, CallOptions, Answer } from "../../api/api-client.js";
import type { Operation } from "../../api/operation.js";
import type { RunnerDeps } from "../attempt-record.js";
import type { PageRead, PagingRequest } from "../../streams/paging.js";
import type { Cursor, PageWarning, Partition } from "../../streams/partition.js";
import type { FetchContext, PageFetch, Stream } from "../../streams/stream.js";

/** What fetchPages asks for: a stream's partition, with the options of every request. */
export interface PagesAsked {
  readonly stream: Stream;
  readonly partition: Partition;
  readonly call: CallOptions;
}

/** What the extract loop does with each page it fetched. */
export interface PageHandling {
  /** Reads (and for a sync, loads) the page; what its list says of itself. */
  readonly take: (cursor: Cursor, answers: readonly Answer[]) => Promise<PageRead>;
  /** Told what the paging finds uncertain: a stop where the body says the list goes on. */
  readonly warn?: (warning: PageWarning) => void;
  /** Wraps each fetch (the sync times them). */
  readonly timed?: (fetch: () => Promise<readonly Answer[]>) => Promise<readonly Answer[]>;
}

/**
 * The extract loop: asks for a partition's pages one after another, as the stream's paging says,
 * each handed to `take` before the next is asked for. It keeps the cursor, as a paginator keeps
 * its state: where the next page starts is the paging's decision from what the page read says.
 */
export async function fetchPages(
  deps: Pick<RunnerDeps, "api" | "config" | "today">,
  { stream, partition, call }: PagesAsked,
  { take, warn, timed = (fetch) => fetch() }: PageHandling,
): Promise<void> {
  const context: FetchContext = { api: deps.api, config: deps.config, today: deps.today, call };
  let cursor: Cursor = null;
  for (;;) {
    const request = stream.paging.request(cursor, partition);
    if (request === null) return;
    const page = pageFetch(deps.api, call, request);
    const answers = await timed(() => stream.fetch(context, partition, page));
    const read = await take(cursor, answers);
    const step = stream.paging.next(read.list, cursor, read.context, partition);
    for (const warning of step.warnings) warn?.(warning);
    if (step.next === null) return;
    cursor = step.next;
  }
}

/** A page as its fetch asks for it: the stream's request with the paging's parameters added. */
function pageFetch(
  api: ApiClient,
  call: CallOptions,
  request: PagingRequest<object>,
): PageFetch<object> {
  return {
    params: request.params,
    send: <S extends z.ZodType>(operation: Operation<S, unknown>, params: object) =>
      request.link === undefined
        ? api.send(operation, { ...params, ...request.params } as z.input<S>, call)
        : api.follow(operation, request.link, call),
  };
}
