import type { Answer } from "../../api/api-client.js";
import { parseJsonBody } from "../../json/json-body.js";
import { collectUntyped, type UntypedValue } from "../../api/untyped-values.js";
import type { StoredResponse } from "../../warehouse/responses.js";
import { finishAttempt, startAttempt } from "../../warehouse/attempts.js";
import {
  errorMessage,
  ReplayIncompleteError,
  ReplayPagesError,
  StoredFailureError,
} from "../../errors.js";
import { declaresFailure } from "../../http/failure-body.js";
import { upstreamMessage } from "../../http/upstream-message.js";
import { recordSafely, type RunnerDeps, unrecordedFailure } from "../attempt-record.js";
import { PartitionLoad } from "../load/partition-load.js";
import { endWarnings, type PageRead } from "../../streams/paging.js";
import type { PartitionOutcome } from "../partition-outcome.js";
import { PageSizes } from "../../streams/page-sizes.js";
import { PhaseTimer } from "../phase-timer.js";
import type { Stream } from "../../streams/stream.js";
import type { Cursor, Partition } from "../../streams/partition.js";

/** One earlier sync of a partition to load again: its audit row and what it read. */
export interface ReplaySource {
  readonly attemptId: string;
  readonly partition: Partition;
  readonly extractedOn: string;
  readonly responses: readonly StoredResponse[];
  /** Responses the sync read that are no longer stored (pruned): the replay cannot be whole. */
  readonly missingResponses: number;
  /** The keys of the pages the sync read, in order; null if it ran before they were recorded. */
  readonly pages: readonly string[] | null;
  /** Whether this load derives the partition's whole state again (its first in a replay). */
  readonly releaseQuarantine: boolean;
}

/**
 * Loads one earlier sync of a partition again from its stored responses: the load stage alone,
 * with no request, in the same partition transactions and with an audit row of kind replay.
 * The partition's checkpoint is left as the sync set it. It reads exactly the pages the sync
 * read, a page that needed no request included (its rows come from the partition alone), or it
 * deletes nothing: a replay must never remove what it cannot derive again.
 */
export async function replayPartition(
  deps: ReplayDeps,
  stream: Stream,
  source: ReplaySource,
): Promise<PartitionOutcome> {
  const noted: UntypedValue[] = [];
  return collectUntyped(noted, () => replayAndRecord(deps, stream, source, noted));
}

/** A replay's runner: it asks nothing of the upstream, but must tell its links from others. */
type ReplayDeps = Omit<RunnerDeps, "api"> & { readonly ownsLink: (link: string) => boolean };

async function replayAndRecord(
  deps: ReplayDeps,
  stream: Stream,
  source: ReplaySource,
  noted: UntypedValue[],
): Promise<PartitionOutcome> {
  const started = performance.now();
  const { partition } = source;
  let attemptId: string;
  try {
    ({ attemptId } = await startAttempt(deps.db, stream.name, partition.key, {
      kind: "replay",
      extractedOn: source.extractedOn,
      replayOf: source.attemptId,
      run: deps.run,
    }));
  } catch (error) {
    return unrecordedFailure(deps, "replay", stream, partition, error, started);
  }
  const ids = new Map<Answer, string>();
  const load = replayLoad(deps, stream, source, attemptId, noted, ids);
  try {
    await loadStoredPages(stream, source, load, ids);
    await load.finish({ requests: 0 });
    return load.account.outcome("succeeded", 0, performance.now() - started);
  } catch (error) {
    const message = errorMessage(error);
    const status = deps.signal?.aborted ? "interrupted" : "failed";
    await recordSafely(
      deps.logger.child({ stream: stream.name, partition: partition.key }),
      deps,
      attemptId,
      () => finishAttempt(deps.db, attemptId, load.account.attemptEnd(status, 0, message)),
    );
    return load.account.outcome(status, 0, performance.now() - started, error);
  } finally {
    load.account.report(deps.logger, 0);
  }
}

/**
 * The load stage of a replay: the checkpoint stays as the sync set it, and no response is landed
 * again: a page's are those stored already (`ids`, filled as the stored pages are grouped).
 */
function replayLoad(
  deps: ReplayDeps,
  stream: Stream,
  source: ReplaySource,
  attemptId: string,
  noted: UntypedValue[],
  ids: ReadonlyMap<Answer, string>,
): PartitionLoad {
  return new PartitionLoad({
    db: deps.db,
    stream,
    partition: source.partition,
    attemptId,
    config: deps.config,
    today: source.extractedOn,
    ownsLink: deps.ownsLink,
    pageSizes: deps.pageSizes ?? new PageSizes({ replay: true }),
    expectNew: false,
    quarantine: source.releaseQuarantine ? "replace" : "add",
    noted,
    timer: new PhaseTimer(),
    checkpoint: false,
    land: (_db, pages) =>
      Promise.resolve(pages.flatMap((page) => page.answers.map((e) => ids.get(e) ?? ""))),
  });
}

/**
 * Loads the pages the sync read, from its stored responses, in order. Throws before any is
 * loaded when the responses are not all there, do not fit those pages, or one declares failure.
 */
async function loadStoredPages(
  stream: Stream,
  source: ReplaySource,
  load: PartitionLoad,
  ids: Map<Answer, string>,
): Promise<void> {
  const { partition } = source;
  if (source.missingResponses > 0) {
    throw new ReplayIncompleteError(stream.name, partition.key, source.missingResponses);
  }
  const keys = pagesRead(source);
  if (keys === null) {
    load.account.warn({
      kind: "truncated",
      message:
        "the sync recorded no pages and no response: which pages it read is unknown, so the replay deletes nothing",
    });
  }
  const pages = groupPages(source.responses, keys ?? [], ids);
  if (pages === null) throw new ReplayPagesError(stream.name, partition.key);
  refuseFailureBodies(stream, partition, pages);
  // The landed pages in the order they were read: the replay keeps no cursor, and asks only
  // whether the last of them says the list goes on.
  let last: PageRead | null = null;
  for (const page of pages) last = await load.page(page.cursor, page.answers);
  if (last !== null)
    for (const warning of endWarnings(last.list, last.context)) load.account.warn(warning);
}

/**
 * Throws when a stored response declares failure: one landed before the client refused such
 * answers is no data. Asked of every page before the first is loaded, so such a replay fails
 * before any row changes. A sync needs no such check: its client refused them already.
 */
function refuseFailureBodies(
  stream: Stream,
  partition: Partition,
  pages: readonly { answers: readonly Answer[] }[],
): void {
  for (const answer of pages.flatMap((page) => page.answers)) {
    if (!declaresFailure(answer.body)) continue;
    // The text only makes the message of a failure: decoded for those alone.
    const message = upstreamMessage(answer.body, answer.bytes.toString());
    throw new StoredFailureError(stream.name, partition.key, answer.operation, message);
  }
}

/**
 * The keys of the pages a sync read: as recorded with it, or for a sync recorded without them,
 * as its responses show them (a page begins at its part 0: the only page ever read without a
 * request was that of the tracked artists with no streaming id, which asked nothing at all). A
 * sync with neither may have read a page or none: null, unknown.
 */
function pagesRead(source: ReplaySource): readonly string[] | null {
  if (source.pages !== null) return source.pages;
  if (source.responses.length === 0) return null;
  return source.responses.filter(({ part }) => part === 0).map(({ page }) => page);
}

/**
 * The pages of `keys` in order, each with its stored responses: consecutive, of that page, parts
 * numbered from 0; a page read with no request has none. Null when responses are left that fit
 * no page: the sync cannot be read again as it was.
 */
function groupPages(
  responses: readonly StoredResponse[],
  keys: readonly string[],
  ids: Map<Answer, string>,
): { cursor: Cursor; answers: Answer[] }[] | null {
  let at = 0;
  const pages = keys.map((key) => {
    const answers: Answer[] = [];
    let response = responses[at];
    while (response?.page === key && response.part === answers.length) {
      const answer: Answer = {
        operation: response.operation,
        params: response.params,
        status: response.status,
        body: parseJsonBody(response.text),
        bytes: Buffer.from(response.text),
      };
      ids.set(answer, response.responseId);
      answers.push(answer);
      at += 1;
      response = responses[at];
    }
    return { cursor: JSON.parse(key) as Cursor, answers };
  });
  return at === responses.length ? pages : null;
}
