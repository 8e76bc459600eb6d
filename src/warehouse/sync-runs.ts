import type { Kysely } from "kysely";
import type { UntypedField } from "../api/untyped-values.js";
import type { Database } from "./schema.js";

type Db = Kysely<Database>;

export interface SyncRunStart {
  readonly runId: string;
  /**
   * No attempt of this partition was started before: its rows are most likely not stored yet
   * (another partition may have stored the same entity).
   */
  readonly firstAttempt: boolean;
}

/** Opens the audit row of one partition attempt, and tells whether an earlier one exists. */
export async function startSyncRun(
  db: Db,
  stream: string,
  partition: string,
): Promise<SyncRunStart> {
  // Every part of one statement sees the same snapshot: `earlier` cannot see the row inserted.
  const { run_id, ever_ran } = await db
    .with("earlier", (qb) =>
      qb
        .selectFrom("etl.sync_runs")
        .select("run_id")
        .where("stream", "=", stream)
        .where("partition", "=", partition)
        .limit(1),
    )
    .insertInto("etl.sync_runs")
    .values({ stream, partition })
    .returning((eb) => [
      "run_id",
      eb.exists(eb.selectFrom("earlier").select("run_id")).as("ever_ran"),
    ])
    .executeTakeFirstOrThrow();
  return { runId: run_id, firstAttempt: !ever_ran };
}

export interface SyncRunEnd {
  readonly status: "succeeded" | "failed";
  readonly requests: number;
  readonly rowsWritten: number;
  readonly error?: string;
  readonly untyped?: readonly UntypedField[];
}

export async function finishSyncRun(db: Db, runId: string, end: SyncRunEnd): Promise<void> {
  await db
    .updateTable("etl.sync_runs")
    .set({
      status: end.status,
      finished_at: new Date(),
      requests: end.requests,
      rows_written: end.rowsWritten,
      error: end.error ?? null,
      untyped_values: end.untyped?.length ? JSON.stringify(end.untyped) : null,
    })
    .where("run_id", "=", runId)
    .execute();
}
