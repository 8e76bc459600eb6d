import type { CallOptions } from "../../api/api-client.js";
import type { HttpTryEvent } from "../../http/http-messages.js";
import type { Logger } from "../../logging/logger.js";
import { collectUntyped, type UntypedValue } from "../../api/untyped-values.js";
import { landResponses } from "../../warehouse/responses.js";
import { markPartitionFailed } from "../../warehouse/stream-state.js";
import { finishAttempt, startAttempt, type AttemptStart } from "../../warehouse/attempts.js";
import { errorMessage } from "../../errors.js";
import { permanentCause } from "../../http/upstream-errors.js";
import {
  endsAsInterrupted,
  recordSafely,
  type RunnerDeps,
  unrecordedFailure,
} from "../attempt-record.js";
import { PartitionLoad, type PartitionLoadOptions } from "../load/partition-load.js";
import { fetchPages } from "./fetch-pages.js";
import type { PartitionOutcome, PartitionStatus } from "../partition-outcome.js";
import { PageSizes } from "../../streams/page-sizes.js";
import { PhaseTimer } from "../phase-timer.js";
import { pageKey } from "../../streams/paging.js";
import type { Stream } from "../../streams/stream.js";
import type { Partition } from "../../streams/partition.js";

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
export async function syncPartition(
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
  let opened: AttemptStart;
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
    load.account.outcome(status, requests(), performance.now() - started, error);
  try {
    await fetchAndLoadPages(deps, attempt);
    await load.finish({ requests: requests() });
    return outcome("succeeded");
  } catch (error) {
    const status = await recordSyncFailure(deps, attempt, error);
    return outcome(status, error);
  } finally {
    load.account.report(deps.logger, requests());
  }
}

/** A sync attempt whose audit row is open. */
interface SyncAttempt {
  readonly stream: Stream;
  readonly partition: Partition;
  readonly attemptId: string;
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
  opened: AttemptStart,
  noted: UntypedValue[],
): SyncAttempt {
  const log = deps.logger.child({ stream: stream.name, partition: partition.key });
  let requests = 0;
  const timer = new PhaseTimer();
  const load = syncLoad(deps, stream, partition, opened, noted, timer);
  const call: CallOptions = {
    signal: deps.signal,
    onTry: ({ failureBody }: HttpTryEvent) => {
      requests += 1;
      if (failureBody !== undefined) load.account.noteFailureBody(failureBody);
    },
  };
  const { attemptId } = opened;
  return { stream, partition, attemptId, load, timer, log, call, requests: () => requests };
}

/** Opens the audit row of a sync attempt (closing a dead process's attempts, for a worker). */
function openSyncAttempt(
  deps: RunnerDeps,
  stream: Stream,
  partition: Partition,
): Promise<AttemptStart> {
  return startAttempt(deps.db, stream.name, partition.key, {
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
  opened: AttemptStart,
  noted: UntypedValue[],
  timer: PhaseTimer,
): PartitionLoad {
  return new PartitionLoad({
    db: deps.db,
    stream,
    partition,
    attemptId: opened.attemptId,
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
      pages.flatMap(({ cursor, answers }) =>
        answers.map((answer, part) => ({
          page: pageKey(cursor),
          part,
          operation: answer.operation,
          params: answer.params,
          status: answer.status,
          text: answer.bytes,
        })),
      ),
      firstAttempt,
    );
}

/**
 * Fetches the partition's pages one after another, each loaded before the next is asked for,
 * until the paging asks for no more; what the paging finds uncertain is the load's warning.
 */
function fetchAndLoadPages(deps: RunnerDeps, attempt: SyncAttempt): Promise<void> {
  const { stream, partition, load, timer, call } = attempt;
  return fetchPages(
    deps,
    { stream, partition, call },
    {
      take: (cursor, answers) => load.page(cursor, answers),
      warn: (warning) => load.account.warn(warning),
      timed: (fetch) => timer.time("fetch", fetch),
    },
  );
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
  const { stream, partition, attemptId, load, log, requests } = attempt;
  const { db } = deps;
  const message = errorMessage(error);
  if (endsAsInterrupted(error, deps.signal)) {
    log.info(
      { err: message, requests: requests() },
      "partition interrupted; it is handed back as it was",
    );
    await recordSafely(log, deps, attemptId, () =>
      finishAttempt(db, attemptId, load.account.attemptEnd("interrupted", requests(), message)),
    );
    return "interrupted";
  }
  log.error({ err: message, requests: requests() }, "partition failed");
  await recordSafely(log, deps, attemptId, () =>
    db.transaction().execute(async (trx) => {
      await markPartitionFailed(
        trx,
        stream.name,
        partition.key,
        message,
        deps.jobId,
        permanentCause(error),
      );
      await finishAttempt(trx, attemptId, load.account.attemptEnd("failed", requests(), message));
    }),
  );
  return "failed";
}
