import type { z } from "zod";
import type { ApiClient, CallOptions, Exchange } from "../api/api-client.js";
import type { Operation } from "../api/operation.js";
import type { HttpAttemptEvent } from "../http/http-client.js";
import type { EtlConfig } from "../config/etl-config-schema.js";
import type { Logger } from "../logging/logger.js";
import type { Warehouse } from "../warehouse/database.js";
import { parseJsonBody } from "../json/json-body.js";
import { collectUntyped, type UntypedValue } from "../api/untyped-values.js";
import { type StoredResponse, landResponses } from "../warehouse/responses.js";
import { markPartitionFailed } from "../warehouse/stream-state.js";
import {
  attemptRunning,
  finishSyncRun,
  startSyncRun,
  type SyncRunStart,
} from "../warehouse/sync-runs.js";
import {
  AuthError,
  permanentCause,
  errorMessage,
  ReplayIncompleteError,
  ReplayPagesError,
  StoredFailureError,
} from "../errors.js";
import { declaresFailure } from "../http/failure-body.js";
import { upstreamMessage } from "../http/upstream-message.js";
import { PartitionLoad, type PartitionLoadOptions } from "./partition-load.js";
import type { PartitionOutcome, PartitionStatus } from "./partition-outcome.js";
import { PageSizes } from "./page-sizes.js";
import { PhaseTimer } from "./phase-timer.js";
import { type PagingRequest, pageKey } from "./paging.js";
import type { FetchContext, PageFetch, Stream } from "./stream.js";
import type { Cursor, Partition } from "./partition.js";

export interface RunnerDeps {
  readonly db: Warehouse;
  readonly api: ApiClient;
  readonly logger: Logger;
  readonly config: EtlConfig;
  /** The run's date (UTC): snapshot rows are stamped with it. */
  readonly today: string;
  readonly signal?: AbortSignal;
  /** Page sizes learned per operation, shared by the partitions of a run or a worker. */
  readonly pageSizes?: PageSizes;
  /**
   * The caller holds the partition's lock (a worker): attempts still marked running belong to a
   * process that died, and are closed as abandoned when this one opens.
   */
  readonly closeAbandoned?: boolean;
  /**
   * The queue job this attempt is one of (a worker's). A failure names it in etl.stream_state:
   * whether another attempt comes is then for the job's state in the queue to say, not a guess
   * made before the job has moved. Without one (a one-shot sync), a failure is final.
   */
  readonly jobId?: string;
  /** The run (etl.runs) the attempt is part of, named in its etl.sync_runs row. */
  readonly run?: string;
  /**
   * Keeps a record of the attempt's end that Postgres refused (a worker's: written once Postgres
   * answers again). Without it, such a record is lost and the attempt stays `running` until the
   * partition's next attempt closes it.
   */
  readonly deferRecord?: (record: () => Promise<void>) => void;
}

/**
 * Whether an error ends the attempt as interrupted rather than failed: the run was told to stop
 * (its signal), or the upstream refused the credential, which no partition can do anything about.
 */
function endsAsInterrupted(error: unknown, signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true || error instanceof AuthError;
}

/**
 * The outcome of a partition whose audit row could not even be opened (Postgres away for a
 * moment): it failed, and nothing else did. A sync's failure is noted in etl.stream_state when
 * the database allows; a replay leaves the partition's state as its sync set it.
 */
async function unrecordedFailure(
  deps: Pick<RunnerDeps, "db" | "logger" | "signal" | "jobId" | "deferRecord">,
  kind: "sync" | "replay",
  stream: Stream,
  partition: Partition,
  error: unknown,
  started: number,
): Promise<PartitionOutcome> {
  const interrupted = endsAsInterrupted(error, deps.signal);
  const log = deps.logger.child({ stream: stream.name, partition: partition.key });
  log.error({ err: errorMessage(error) }, "partition attempt could not be recorded");
  if (!interrupted && kind === "sync") {
    await recordSafely(log, deps, null, () =>
      markPartitionFailed(
        deps.db,
        stream.name,
        partition.key,
        errorMessage(error),
        deps.jobId,
        permanentCause(error),
      ),
    );
  }
  return {
    stream: stream.name,
    partition: partition.key,
    status: interrupted ? "interrupted" : "failed",
    requests: 0,
    rowsWritten: 0,
    rowsRejected: 0,
    failureBodies: 0,
    warnings: [],
    untyped: [],
    timings: new PhaseTimer().timings(),
    durationMs: performance.now() - started,
    error,
  };
}

/**
 * Records how an attempt ended when it did not succeed; a database that fails this too costs a
 * log line, not the run. A worker writes the record later (`deferRecord`), if the attempt
 * (`runId`) is still `running` by then: a later attempt of the partition that closed it as
 * abandoned has recorded newer news. Without either, the attempt stays `running` until the
 * partition's next attempt closes it.
 */
async function recordSafely(
  log: Logger,
  deps: Pick<RunnerDeps, "db" | "deferRecord">,
  runId: string | null,
  record: () => Promise<void>,
): Promise<void> {
  try {
    await record();
  } catch (error) {
    log.error({ err: errorMessage(error) }, "the attempt's end could not be recorded");
    if (runId === null) return;
    deps.deferRecord?.(async () => {
      if (await attemptRunning(deps.db, runId)) await record();
    });
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
    exchange: <S extends z.ZodType>(operation: Operation<S, unknown>, params: object) =>
      request.link === undefined
        ? api.exchange(operation, { ...params, ...request.params } as z.input<S>, call)
        : api.follow(operation, request.link, call),
  };
}

/**
 * Syncs one partition in two stages, page by page: extract (the stream's requests, their
 * answers kept as received) then load (records read from those answers, written as rows). Rows
 * are written in batches of `write_batch_rows` rows or `write_batch_bytes` of responses read,
 * each batch in one transaction with the responses it was read from (a page larger than a batch
 * lands them with its first). The last batch, the removal of rows the upstream no longer returns,
 * the checkpoint and the audit row commit together, so a crash re-runs at most this partition,
 * and re-running it changes nothing.
 * It never throws: every failure, its audit rows' included, is the partition's outcome.
 */
export async function runPartition(
  deps: RunnerDeps,
  stream: Stream,
  partition: Partition,
): Promise<PartitionOutcome> {
  const noted: UntypedValue[] = [];
  return collectUntyped(noted, () => syncAndRecord(deps, stream, partition, noted));
}

async function syncAndRecord(
  deps: RunnerDeps,
  stream: Stream,
  partition: Partition,
  noted: UntypedValue[],
): Promise<PartitionOutcome> {
  const started = performance.now();
  let opened: SyncRunStart;
  try {
    opened = await openSyncAttempt(deps, stream, partition);
  } catch (error) {
    return unrecordedFailure(deps, "sync", stream, partition, error, started);
  }
  const { abandoned } = opened;
  const attempt = syncAttempt(deps, stream, partition, opened, noted);
  const { log, load, requests } = attempt;
  if (abandoned > 0) {
    log.warn({ abandoned }, "closed attempts of a process that died while running this partition");
  }
  const outcome = (status: PartitionStatus, error?: unknown): PartitionOutcome =>
    load.outcome(status, requests(), performance.now() - started, error);
  try {
    await fetchAndLoadPages(deps, attempt);
    await load.finish({ requests: requests() });
    return outcome("succeeded");
  } catch (error) {
    const status = await recordSyncFailure(deps, attempt, error);
    return outcome(status, error);
  } finally {
    load.report(deps.logger, requests());
  }
}

/** A sync attempt whose audit row is open. */
interface SyncAttempt {
  readonly stream: Stream;
  readonly partition: Partition;
  readonly runId: string;
  readonly load: PartitionLoad;
  readonly timer: PhaseTimer;
  readonly log: Logger;
  /** The options of every request it makes: they count the requests. */
  readonly call: CallOptions;
  /**
   * The requests made so far, read when needed: a record of the attempt's end written later
   * counts those still in flight when it threw.
   */
  readonly requests: () => number;
}

/** What a sync attempt holds once its audit row is open: its log, its load, its requests. */
function syncAttempt(
  deps: RunnerDeps,
  stream: Stream,
  partition: Partition,
  opened: SyncRunStart,
  noted: UntypedValue[],
): SyncAttempt {
  const log = deps.logger.child({ stream: stream.name, partition: partition.key });
  let requests = 0;
  const timer = new PhaseTimer();
  const load = syncLoad(deps, stream, partition, opened, noted, timer);
  const call: CallOptions = {
    signal: deps.signal,
    onAttempt: ({ failureBody }: HttpAttemptEvent) => {
      requests += 1;
      if (failureBody !== undefined) load.noteFailureBody(failureBody);
    },
  };
  const { runId } = opened;
  return { stream, partition, runId, load, timer, log, call, requests: () => requests };
}

/** Opens the audit row of a sync attempt (closing a dead process's attempts, for a worker). */
function openSyncAttempt(
  deps: RunnerDeps,
  stream: Stream,
  partition: Partition,
): Promise<SyncRunStart> {
  return startSyncRun(deps.db, stream.name, partition.key, {
    kind: "sync",
    partitionData: partition,
    extractedOn: deps.today,
    closeAbandoned: deps.closeAbandoned,
    run: deps.run,
  });
}

/**
 * The load stage of a sync attempt: it moves the checkpoint, lands the pages it is given, and
 * expects new rows on a partition's first attempt.
 */
function syncLoad(
  deps: RunnerDeps,
  stream: Stream,
  partition: Partition,
  opened: SyncRunStart,
  noted: UntypedValue[],
  timer: PhaseTimer,
): PartitionLoad {
  return new PartitionLoad({
    db: deps.db,
    stream,
    partition,
    runId: opened.runId,
    config: deps.config,
    today: deps.today,
    ownsLink: (link) => deps.api.ownsLink(link),
    pageSizes: deps.pageSizes ?? new PageSizes(),
    expectNew: opened.firstAttempt,
    quarantine: stream.outputs.every((o) => o.mode === "replace") ? "replace" : "add",
    noted,
    timer,
    checkpoint: true,
    land: landPages(stream, partition, opened.firstAttempt),
  });
}

/**
 * How a sync lands a partition's pages: each response keyed by its page's cursor and place.
 * `firstAttempt`: the partition never ran, so its responses are most likely not stored yet.
 */
export function landPages(
  stream: Stream,
  partition: Partition,
  firstAttempt: boolean,
): PartitionLoadOptions["land"] {
  return (trx, pages) =>
    landResponses(
      trx,
      stream.name,
      partition.key,
      pages.flatMap(({ cursor, exchanges }) =>
        exchanges.map((exchange, part) => ({
          page: pageKey(cursor),
          part,
          operation: exchange.operation,
          params: exchange.params,
          status: exchange.status,
          text: exchange.bytes,
        })),
      ),
      firstAttempt,
    );
}

/**
 * Fetches the partition's pages one after another, each loaded before the next is asked for,
 * until the paging asks for no more or the load finds the list complete.
 */
async function fetchAndLoadPages(deps: RunnerDeps, attempt: SyncAttempt): Promise<void> {
  const { stream, partition, load, timer, call } = attempt;
  const context: FetchContext = { api: deps.api, config: deps.config, today: deps.today, call };
  let cursor: Cursor = null;
  for (;;) {
    const request = stream.paging.request(cursor, partition);
    if (request === null) return;
    const page = pageFetch(deps.api, call, request);
    const exchanges = await timer.time("fetch", () => stream.fetch(context, partition, page));
    const next = await load.page(cursor, exchanges);
    if (next === null) return;
    cursor = next;
  }
}

/**
 * Records how a sync attempt that threw ended, and says which: interrupted (handed back as it
 * was) or failed (noted in etl.stream_state in the transaction that closes the attempt).
 */
async function recordSyncFailure(
  deps: RunnerDeps,
  attempt: SyncAttempt,
  error: unknown,
): Promise<"interrupted" | "failed"> {
  const { stream, partition, runId, load, log, requests } = attempt;
  const { db } = deps;
  const message = errorMessage(error);
  if (endsAsInterrupted(error, deps.signal)) {
    log.info(
      { err: message, requests: requests() },
      "partition interrupted; it is handed back as it was",
    );
    await recordSafely(log, deps, runId, () =>
      finishSyncRun(db, runId, load.attemptEnd("interrupted", requests(), message)),
    );
    return "interrupted";
  }
  log.error({ err: message, requests: requests() }, "partition failed");
  await recordSafely(log, deps, runId, () =>
    db.transaction().execute(async (trx) => {
      await markPartitionFailed(
        trx,
        stream.name,
        partition.key,
        message,
        deps.jobId,
        permanentCause(error),
      );
      await finishSyncRun(trx, runId, load.attemptEnd("failed", requests(), message));
    }),
  );
  return "failed";
}

/** One earlier sync of a partition to load again: its audit row and what it read. */
export interface ReplaySource {
  readonly runId: string;
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
  let runId: string;
  try {
    ({ runId } = await startSyncRun(deps.db, stream.name, partition.key, {
      kind: "replay",
      extractedOn: source.extractedOn,
      replayOf: source.runId,
      run: deps.run,
    }));
  } catch (error) {
    return unrecordedFailure(deps, "replay", stream, partition, error, started);
  }
  const ids = new Map<Exchange, string>();
  const load = replayLoad(deps, stream, source, runId, noted, ids);
  try {
    await loadStoredPages(stream, source, load, ids);
    await load.finish({ requests: 0 });
    return load.outcome("succeeded", 0, performance.now() - started);
  } catch (error) {
    const message = errorMessage(error);
    const status = deps.signal?.aborted ? "interrupted" : "failed";
    await recordSafely(
      deps.logger.child({ stream: stream.name, partition: partition.key }),
      deps,
      runId,
      () => finishSyncRun(deps.db, runId, load.attemptEnd(status, 0, message)),
    );
    return load.outcome(status, 0, performance.now() - started, error);
  } finally {
    load.report(deps.logger, 0);
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
  runId: string,
  noted: UntypedValue[],
  ids: ReadonlyMap<Exchange, string>,
): PartitionLoad {
  return new PartitionLoad({
    db: deps.db,
    stream,
    partition: source.partition,
    runId,
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
      Promise.resolve(pages.flatMap((page) => page.exchanges.map((e) => ids.get(e) ?? ""))),
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
  ids: Map<Exchange, string>,
): Promise<void> {
  const { partition } = source;
  if (source.missingResponses > 0) {
    throw new ReplayIncompleteError(stream.name, partition.key, source.missingResponses);
  }
  const keys = pagesRead(source);
  if (keys === null) {
    load.warn({
      kind: "truncated",
      message:
        "the sync recorded no pages and no response: which pages it read is unknown, so the replay deletes nothing",
    });
  }
  const pages = groupPages(source.responses, keys ?? [], ids);
  if (pages === null) throw new ReplayPagesError(stream.name, partition.key);
  refuseFailureBodies(stream, partition, pages);
  for (const page of pages) {
    const next = await load.page(page.cursor, page.exchanges);
    if (page.last && next !== null && next !== undefined) {
      load.warn({
        kind: "truncated",
        message: "the stored responses end where the last one says the list goes on",
      });
    }
  }
}

/**
 * Throws when a stored response declares failure: one landed before the client refused such
 * answers is no data. Asked of every page before the first is loaded, so such a replay fails
 * before any row changes. A sync needs no such check: its client refused them already.
 */
function refuseFailureBodies(
  stream: Stream,
  partition: Partition,
  pages: readonly { exchanges: readonly Exchange[] }[],
): void {
  for (const exchange of pages.flatMap((page) => page.exchanges)) {
    if (!declaresFailure(exchange.body)) continue;
    // The text only makes the message of a failure: decoded for those alone.
    const message = upstreamMessage(exchange.body, exchange.bytes.toString());
    throw new StoredFailureError(stream.name, partition.key, exchange.operation, message);
  }
}

/**
 * The keys of the pages a sync read. Recorded with it since migration 2026-11-25-015; before
 * that, its responses show them (a page begins at its part 0), since no earlier release read a
 * page without asking for it but the tracked artists with no streaming id, which asked nothing
 * at all. A sync with neither may have read a page or none: null, unknown.
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
  ids: Map<Exchange, string>,
): { cursor: Cursor; exchanges: Exchange[]; last: boolean }[] | null {
  let at = 0;
  const pages = keys.map((key, i) => {
    const exchanges: Exchange[] = [];
    let response = responses[at];
    while (response?.page === key && response.part === exchanges.length) {
      const exchange: Exchange = {
        operation: response.operation,
        params: response.params,
        status: response.status,
        body: parseJsonBody(response.text),
        bytes: Buffer.from(response.text),
      };
      ids.set(exchange, response.responseId);
      exchanges.push(exchange);
      at += 1;
      response = responses[at];
    }
    return { cursor: JSON.parse(key) as Cursor, exchanges, last: i === keys.length - 1 };
  });
  return at === responses.length ? pages : null;
}
