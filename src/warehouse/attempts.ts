import { CompiledQuery, type Kysely, type QueryCreator, type RawBuilder, sql } from "kysely";
import type { UntypedField } from "../api/untyped-values.js";
import { PROCESS_IDENTITY } from "../process-identity.js";
import type { AttemptStatus, Database } from "./schema.js";
import { type PartitionSuccess, partitionRederived, partitionSucceeded } from "./stream-state.js";
import { utcToday } from "../time/calendar.js";
import { storableJsonText, storableTextOf } from "./storable-values.js";

type Db = Kysely<Database>;

export interface AttemptStart {
  readonly attemptId: string;
  /**
   * No attempt of this partition was started before: its rows are most likely not stored yet
   * (another partition may have stored the same entity).
   */
  readonly firstAttempt: boolean;
  /** Earlier attempts closed as abandoned (with `closeAbandoned`). */
  readonly abandoned: number;
}

/** What an attempt is: a sync of a partition, or a replay of an earlier sync's responses. */
export interface AttemptOpening {
  readonly kind: "sync" | "replay";
  /** The partition as planned (its days, windows, artists), kept for replay. */
  readonly partitionData?: unknown;
  /** The run date of the extraction (UTC). */
  readonly extractedOn: string;
  /** For a replay: the sync attempt whose responses are loaded again. */
  readonly replayOf?: string;
  /**
   * The caller holds the partition's lock, so no earlier attempt still marked running can be
   * alive: its process died, and its lock expired, or the database failed as the attempt ended.
   * They are closed as abandoned by the statement that opens this one.
   */
  readonly closeAbandoned?: boolean;
  /** The run (etl.runs) the attempt is part of. */
  readonly run?: string;
}

const ABANDONED_ERROR =
  "its process stopped before the attempt ended; found when the partition was picked up again";

/**
 * Opens an attempt, closing the partition's attempts still marked running when asked. Every part
 * of one statement sees the same snapshot: `earlier` cannot see the row inserted, nor `abandoned`
 * update it. Text written once: it runs for every partition, and through the query builder its
 * nodes were built and compiled each time (0.1 ms of the worker's thread per partition).
 */
const START_ATTEMPT = `
  with earlier as (
    select attempt_id from etl.attempts where stream = $1 and partition = $2 limit 1
  ), abandoned as (
    update etl.attempts
       set status = 'abandoned', finished_at = now(), closed_by = $3, error = $4
     where stream = $1 and partition = $2 and status = 'running' and $5::boolean
    returning attempt_id
  )
  insert into etl.attempts
    (stream, partition, kind, extracted_on, runner, partition_data, replay_of, run)
  values ($1, $2, $6, $7::date, $3, $8::jsonb, $9::bigint, $10)
  returning attempt_id, exists (select 1 from earlier) as ever_ran,
    (select count(*) from abandoned)::int as abandoned`;

/** Opens the audit row of one partition attempt, and tells whether an earlier one exists. */
export async function startAttempt(
  db: Db,
  stream: string,
  partition: string,
  opening: AttemptOpening = { kind: "sync", extractedOn: utcToday() },
): Promise<AttemptStart> {
  const { rows } = await db.executeQuery<{
    attempt_id: string;
    ever_ran: boolean;
    abandoned: number;
  }>(
    CompiledQuery.raw(START_ATTEMPT, [
      stream,
      partition,
      PROCESS_IDENTITY,
      ABANDONED_ERROR,
      opening.closeAbandoned === true,
      opening.kind,
      opening.extractedOn,
      opening.partitionData === undefined ? null : JSON.stringify(opening.partitionData),
      opening.replayOf ?? null,
      opening.run ?? null,
    ]),
  );
  const [row] = rows;
  if (!row) throw new Error(`the attempt of ${stream} ${partition} was not opened`);
  return { attemptId: row.attempt_id, firstAttempt: !row.ever_ran, abandoned: row.abandoned };
}

/**
 * Closes a partition's attempts still marked running as abandoned, with `error`, when the caller
 * holds the partition's lock (so none of them can be alive) and opens no attempt of its own.
 * Returns how many it closed.
 */
export async function closeAbandonedAttempts(
  db: Db,
  stream: string,
  partition: string,
  error: string,
): Promise<number> {
  const closed = await db
    .updateTable("etl.attempts")
    .set({ status: "abandoned", finished_at: new Date(), closed_by: PROCESS_IDENTITY, error })
    .where("stream", "=", stream)
    .where("partition", "=", partition)
    .where("status", "=", "running")
    .executeTakeFirst();
  return Number(closed.numUpdatedRows);
}

export interface AttemptEnd {
  readonly status: Exclude<AttemptStatus, "running" | "abandoned">;
  readonly requests: number;
  readonly rowsWritten: number;
  readonly error?: string;
  readonly untyped?: readonly UntypedField[];
  readonly rowsRejected?: number;
  /** Answers whose body declared failure, and the last of them as received (for diagnosis). */
  readonly failureBodies?: number;
  readonly failureBody?: string | null;
  readonly warnings?: readonly { readonly kind: string; readonly message: string }[];
  /** The stored responses the attempt read, in page order. */
  readonly responseIds?: readonly string[];
  /** The keys of the pages the attempt read, in order (see pageKey), those with no response too. */
  readonly pages?: readonly string[];
}

export async function finishAttempt(db: Db, attemptId: string, end: AttemptEnd): Promise<void> {
  await closeAttempt(db, attemptId, end).execute();
}

/** What the statement closing a succeeded attempt does besides closing it. */
export interface SucceededClose {
  /** The partition's success and checkpoint (a sync; a replay leaves them as its sync set them). */
  readonly success?: PartitionSuccess;
  /** A replay's warnings for the partition, which replace its sync's (see partitionRederived). */
  readonly rederived?: Omit<PartitionSuccess, "checkpoint">;
  /** Deletes of the rows the upstream no longer returns: the rows they delete count as written. */
  readonly deletes: readonly RawBuilder<unknown>[];
  /** Deletes that are no row of the partition's tables (its quarantine's release): not counted. */
  readonly releases?: readonly RawBuilder<unknown>[];
  /** The discovered columns' fingerprints the statement reads, after the partition's rows. */
  readonly discoveredOf: FingerprintsRead;
}

/**
 * Tables whose discovered columns' fingerprints a statement reads, and the expression reading
 * them, one a table in order (`discoveredFingerprintsOf`, src/columns, makes it).
 */
export interface FingerprintsRead {
  readonly tables: readonly string[];
  readonly fingerprints: RawBuilder<string[]>;
}

/** What closing a succeeded attempt found. */
export interface SucceededClosed {
  /** Rows the deletes removed. */
  readonly deleted: number;
  /** The fingerprint of each table's discovered columns asked for, as the statement saw them. */
  readonly discovered: ReadonlyMap<string, string>;
}

/**
 * Closes a succeeded attempt, deletes what the partition no longer holds and records its success
 * in one statement: a partition's writes are a handful of round trips, and at the upstream's full
 * rate their count is what the worker spends (docs/benchmarks.md). It also reads the fingerprints
 * of the discovered columns of the partition's tables, after its rows: another worker's change
 * since is seen.
 */
export async function finishSucceededAttempt(
  db: Db,
  attemptId: string,
  end: AttemptEnd,
  close: SucceededClose,
): Promise<SucceededClosed> {
  let creator: QueryCreator<Database> = db;
  // Postgres runs every data-modifying CTE of a statement, all on the statement's snapshot: what
  // the transaction wrote before is seen, and no delete sees another's (their scopes are apart).
  for (const [i, statement] of close.deletes.entries()) {
    creator = creator.with(
      `deleted_${i}`,
      () => sql`(${statement} returning 1)`,
    ) as unknown as QueryCreator<Database>;
  }
  // Run though no part of the statement reads them: Postgres runs every data-modifying CTE.
  for (const [i, statement] of (close.releases ?? []).entries()) {
    creator = creator.with(
      `released_${i}`,
      () => sql`(${statement})`,
    ) as unknown as QueryCreator<Database>;
  }
  const { success, rederived } = close;
  if (success) {
    creator = creator.with("state", (qc) =>
      partitionSucceeded(qc, success),
    ) as unknown as QueryCreator<Database>;
  } else if (rederived) {
    creator = creator.with("state", (qc) =>
      partitionRederived(qc, rederived),
    ) as unknown as QueryCreator<Database>;
  }
  const deleted =
    close.deletes.length === 0
      ? sql<string>`0`
      : sql<string>`${sql.join(
          close.deletes.map((_, i) => sql`(select count(*) from ${sql.table(`deleted_${i}`)})`),
          sql` + `,
        )}`;
  const row = await closeAttempt(creator, attemptId, end, deleted)
    .returning(["rows_written", close.discoveredOf.fingerprints.as("discovered")])
    .executeTakeFirstOrThrow();
  return {
    deleted: Number(row.rows_written) - end.rowsWritten,
    discovered: new Map(
      close.discoveredOf.tables.map((table, i) => [table, row.discovered[i] ?? ""]),
    ),
  };
}

function closeAttempt(
  db: Pick<Db, "updateTable">,
  attemptId: string,
  end: AttemptEnd,
  deleted = sql<string>`0`,
) {
  return db
    .updateTable("etl.attempts")
    .set({
      status: end.status,
      finished_at: new Date(),
      requests: end.requests,
      rows_written: sql<number>`${end.rowsWritten} + ${deleted}`,
      // Texts that hold what the upstream sent are kept as Postgres can hold them.
      error: end.error === undefined ? null : storableTextOf(end.error),
      untyped_values: end.untyped?.length ? storableJsonText(end.untyped) : null,
      rows_rejected: end.rowsRejected ?? 0,
      failure_bodies: end.failureBodies ?? 0,
      failure_body: end.failureBody ? storableTextOf(end.failureBody) : null,
      warnings: end.warnings?.length ? storableJsonText(end.warnings) : null,
      response_ids: end.responseIds ? [...end.responseIds] : null,
      pages: end.pages ? [...end.pages] : null,
    })
    .where("attempt_id", "=", attemptId);
}

/** Whether an attempt is still open (`running`): no later attempt closed it as abandoned. */
export async function attemptRunning(db: Db, attemptId: string): Promise<boolean> {
  const row = await db
    .selectFrom("etl.attempts")
    .select("status")
    .where("attempt_id", "=", attemptId)
    .executeTakeFirst();
  return row?.status === "running";
}
