import type { ApiClient } from "../api/api-client.js";
import type { EtlConfig } from "../config/etl-config-schema.js";
import type { Logger } from "../logging/logger.js";
import type { Warehouse } from "../warehouse/database.js";
import { markPartitionFailed } from "../warehouse/stream-state.js";
import { attemptRunning } from "../warehouse/attempts.js";
import { errorMessage } from "../errors.js";
import { AuthError, permanentCause } from "../http/upstream-errors.js";
import type { PageSizes } from "../streams/page-sizes.js";
import type { PartitionOutcome } from "./partition-outcome.js";
import { PhaseTimer } from "./phase-timer.js";
import type { Partition } from "../streams/partition.js";
import type { Stream } from "../streams/stream.js";

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
  /** The run (etl.runs) the attempt is part of, named in its etl.attempts row. */
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
export function endsAsInterrupted(error: unknown, signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true || error instanceof AuthError;
}

/**
 * The outcome of a partition whose audit row could not even be opened (Postgres away for a
 * moment): it failed, and nothing else did. A sync's failure is noted in etl.stream_state when
 * the database allows; a replay leaves the partition's state as its sync set it.
 */
export async function unrecordedFailure(
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
 * (`attemptId`) is still `running` by then: a later attempt of the partition that closed it as
 * abandoned has recorded newer news. Without either, the attempt stays `running` until the
 * partition's next attempt closes it.
 */
export async function recordSafely(
  log: Logger,
  deps: Pick<RunnerDeps, "db" | "deferRecord">,
  attemptId: string | null,
  record: () => Promise<void>,
): Promise<void> {
  try {
    await record();
  } catch (error) {
    log.error({ err: errorMessage(error) }, "the attempt's end could not be recorded");
    if (attemptId === null) return;
    deps.deferRecord?.(async () => {
      if (await attemptRunning(deps.db, attemptId)) await record();
    });
  }
}
