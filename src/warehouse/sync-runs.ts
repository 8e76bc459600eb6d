import type { Kysely } from "kysely";
import type { UntypedField } from "../api/untyped-values.js";
import type { Database } from "./schema.js";

type Db = Kysely<Database>;

/**
 * Whether any attempt of this partition was ever started. If none was, its rows are most likely
 * not stored yet (another partition may have stored the same entity).
 */
export async function partitionEverRan(
  db: Db,
  stream: string,
  partition: string,
): Promise<boolean> {
  const row = await db
    .selectFrom("etl.sync_runs")
    .select("run_id")
    .where("stream", "=", stream)
    .where("partition", "=", partition)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/** Opens the audit row of one partition attempt; returns its run_id. */
export async function startSyncRun(db: Db, stream: string, partition: string): Promise<string> {
  const { run_id } = await db
    .insertInto("etl.sync_runs")
    .values({ stream, partition })
    .returning("run_id")
    .executeTakeFirstOrThrow();
  return run_id;
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
