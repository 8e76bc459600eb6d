import { type Kysely, sql } from "kysely";
import type { Database, RunStatus } from "./schema.js";

type Db = Kysely<Database>;

/** A run as it was asked for: what queues it again. */
export interface RunRequest {
  /** The run's queue job id. */
  readonly runId: string;
  readonly kind: string;
  readonly streams: readonly string[];
  readonly range: { readonly from?: string; readonly to?: string };
}

/** A run as etl.runs records it. */
export interface RunRecord extends RunRequest {
  readonly status: RunStatus;
  readonly queuedAt: Date;
  readonly queuedBy: string | null;
  readonly startedAt: Date | null;
  readonly finishedAt: Date | null;
  readonly error: string | null;
  readonly replacedBy: string | null;
}

/**
 * Records a run a command queued. A worker may have started it first and recorded it then (it is
 * queued before it is recorded, so that no row names a run that never was): that row then only
 * learns who queued it.
 */
export async function recordQueuedRun(
  db: Db,
  run: RunRequest & { readonly queuedBy: string },
): Promise<void> {
  await sql`
    insert into etl.runs (run_id, kind, streams, range_from, range_to, queued_by)
    values (${run.runId}, ${run.kind}, ${[...run.streams]}::text[], ${run.range.from ?? null}::date,
            ${run.range.to ?? null}::date, ${run.queuedBy})
    on conflict (run_id) do update set queued_by = coalesce(etl.runs.queued_by, excluded.queued_by)
  `.execute(db);
}

/**
 * Records that a worker started (or took up again) the run, and the run itself when no command
 * recorded it: a run a job scheduler queued. A run found lost whose job a worker takes is running
 * after all. Writes nothing when it is already recorded as running.
 */
export async function recordRunStarted(
  db: Db,
  run: RunRequest & { readonly queuedAt: Date },
): Promise<void> {
  await sql`
    insert into etl.runs (run_id, kind, streams, range_from, range_to, queued_at, started_at, status)
    values (${run.runId}, ${run.kind}, ${[...run.streams]}::text[], ${run.range.from ?? null}::date,
            ${run.range.to ?? null}::date, ${run.queuedAt}, now(), 'running')
    on conflict (run_id) do update
      set status = 'running', started_at = coalesce(etl.runs.started_at, excluded.started_at),
          finished_at = null, error = null
      where etl.runs.status <> 'running'
  `.execute(db);
}

/**
 * Records a run a command runs itself, in the foreground (`etl sync`, `etl replay`): queued,
 * by this process, and started now.
 */
export async function recordForegroundRun(
  db: Db,
  run: RunRequest & { readonly queuedBy: string },
): Promise<void> {
  await sql`
    insert into etl.runs
      (run_id, kind, streams, range_from, range_to, queued_by, started_at, status)
    values (${run.runId}, ${run.kind}, ${[...run.streams]}::text[], ${run.range.from ?? null}::date,
            ${run.range.to ?? null}::date, ${run.queuedBy}, now(), 'running')
  `.execute(db);
}

/** How a run ended, as its job did (or, in the foreground, its command). */
export interface RunEnd {
  readonly status: "succeeded" | "failed" | "interrupted";
  readonly finishedAt: Date;
  readonly error?: string;
}

/**
 * Records how the run ended (a run not recorded, queued by an older release, is left so), and
 * checks the trends readings of the days its attempts changed against each other
 * (etl.reading_checks), in the same statement.
 */
export async function recordRunFinished(db: Db, runId: string, end: RunEnd): Promise<void> {
  await sql`
    with ended as (
      update etl.runs set status = ${end.status}, finished_at = ${end.finishedAt},
                          error = ${end.error ?? null}
       where run_id = ${runId}
      returning run_id)
    select etl.check_run_readings(run_id) from ended`.execute(db);
}

/** Runs a command runs itself, in the foreground: no queue job stands for them. */
export const FOREGROUND_KINDS = ["sync", "replay"] as const;

/** The ids of the queued runs not finished: queued or running. */
export async function unfinishedRuns(db: Db): Promise<string[]> {
  const rows = await db
    .selectFrom("etl.runs")
    .select("run_id")
    .where(sql<boolean>`status in ('queued', 'running')`)
    .where("kind", "not in", [...FOREGROUND_KINDS])
    .orderBy("queued_at")
    .execute();
  return rows.map((row) => row.run_id);
}

/** The foreground runs recorded as running, with the process running them. */
export async function runningForegroundRuns(
  db: Db,
): Promise<{ runId: string; queuedBy: string | null }[]> {
  const rows = await db
    .selectFrom("etl.runs")
    .select(["run_id", "queued_by"])
    .where("status", "=", "running")
    .where("kind", "in", [...FOREGROUND_KINDS])
    .execute();
  return rows.map((row) => ({ runId: row.run_id, queuedBy: row.queued_by }));
}

/** Marks lost those of the runs still queued or running; returns how many it marked. */
export async function markRunsLost(db: Db, runIds: readonly string[]): Promise<number> {
  if (runIds.length === 0) return 0;
  const result = await db
    .updateTable("etl.runs")
    .set({ status: "lost", finished_at: new Date() })
    .where(sql<boolean>`run_id = any(${[...runIds]}::text[])`)
    .where(sql<boolean>`status in ('queued', 'running')`)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Records that a lost run was queued again as `by` (or joined the identical run `by`). */
export async function recordRunReplaced(db: Db, runId: string, by: string): Promise<void> {
  await db
    .updateTable("etl.runs")
    .set({ replaced_by: by })
    .where("run_id", "=", runId)
    .where("status", "=", "lost")
    .execute();
}

function selectRuns(db: Db) {
  return db
    .selectFrom("etl.runs")
    .select([
      "run_id",
      "kind",
      "streams",
      sql<string | null>`range_from::text`.as("range_from"),
      sql<string | null>`range_to::text`.as("range_to"),
      "status",
      "queued_at",
      "queued_by",
      "started_at",
      "finished_at",
      "error",
      "replaced_by",
    ]);
}

type RunRow = Awaited<ReturnType<ReturnType<typeof selectRuns>["executeTakeFirstOrThrow"]>>;

function toRecord(row: RunRow): RunRecord {
  return {
    runId: row.run_id,
    kind: row.kind,
    streams: row.streams,
    range: {
      ...(row.range_from === null ? {} : { from: row.range_from }),
      ...(row.range_to === null ? {} : { to: row.range_to }),
    },
    status: row.status,
    queuedAt: row.queued_at,
    queuedBy: row.queued_by,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
    error: row.error,
    replacedBy: row.replaced_by,
  };
}

/** The lost runs not queued again, oldest first. */
export async function lostRuns(db: Db): Promise<RunRecord[]> {
  const rows = await selectRuns(db)
    .where("status", "=", "lost")
    .where("replaced_by", "is", null)
    .orderBy("queued_at")
    .execute();
  return rows.map(toRecord);
}

/**
 * The ids of the runs whose id starts with `start`, or with "run-" and `start` (as `etl runs`
 * prints them, a user may drop the "run-"), newest first, at most `limit`.
 */
export async function runIdsStarting(db: Db, start: string, limit: number): Promise<string[]> {
  const starts = start.startsWith("run-") ? [start] : [start, `run-${start}`];
  const rows = await db
    .selectFrom("etl.runs")
    .select("run_id")
    .where((eb) => eb.or(starts.map((s) => eb(sql<string>`left(run_id, ${s.length})`, "=", s))))
    .orderBy("queued_at", "desc")
    .limit(limit)
    .execute();
  return rows.map((row) => row.run_id);
}

/** The run, if etl.runs records it. */
export async function findRun(db: Db, runId: string): Promise<RunRecord | undefined> {
  const row = await selectRuns(db).where("run_id", "=", runId).executeTakeFirst();
  return row && toRecord(row);
}
