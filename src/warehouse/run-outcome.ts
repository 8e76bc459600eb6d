import { sql } from "kysely";
import type { Warehouse } from "./database.js";

/** What a run left to look at, from its attempts: what a notification of its end says. */
export interface RunOutcome {
  /** Partitions whose last attempt in the run failed. */
  readonly failed: number;
  /** Partitions whose last attempt succeeded with a warning, or records quarantined. */
  readonly attention: number;
  /** Streams of those partitions, and of the columns the run added or widened. */
  readonly streams: readonly string[];
  /** Columns the run's attempts added or widened (etl.schema_changes). */
  readonly schemaChanges: number;
}

/** The outcome of run `runId` as its attempts recorded it (each partition's latest attempt). */
export async function runOutcome(db: Warehouse, runId: string): Promise<RunOutcome> {
  const { rows } = await sql<{
    failed: number;
    attention: number;
    streams: string[] | null;
    changes: number;
  }>`
    with latest as (
      select distinct on (stream, partition) stream, status, warnings, rows_rejected
        from etl.attempts where run = ${runId}
       order by stream, partition, attempt_id desc
    ), needing as (
      select stream, status from latest
       where status = 'failed' or warnings is not null or rows_rejected > 0
    ), changed as (
      select c.table_name, a.stream from etl.schema_changes c
        join etl.attempts a on a.attempt_id::text = c.attempt_id where a.run = ${runId}
    )
    select (select count(*) from needing where status = 'failed')::int as failed,
           (select count(*) from needing where status <> 'failed')::int as attention,
           (select array_agg(distinct stream order by stream)
              from (select stream from needing union select stream from changed) s) as streams,
           (select count(*) from changed)::int as changes`.execute(db);
  const row = rows[0];
  return {
    failed: row?.failed ?? 0,
    attention: row?.attention ?? 0,
    streams: row?.streams ?? [],
    schemaChanges: row?.changes ?? 0,
  };
}
