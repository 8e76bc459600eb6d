import { type Kysely, sql } from "kysely";
import type { Database } from "./schema.js";

/** A successful sync of a partition whose responses a replay loads again. */
export interface ReplaySourceRow {
  readonly attemptId: string;
  readonly partition: string;
  readonly partitionData: unknown;
  readonly extractedOn: string;
  readonly responseIds: readonly string[];
  /** The keys of the pages the sync read, in order; null if it ran before they were recorded. */
  readonly pages: readonly string[] | null;
}

/** Syncs read at a time: what a replay holds of its plan. */
const SLICE = 1_000;

/**
 * The successful syncs of a stream to replay, oldest first, a slice at a time: the last of each
 * partition ("partition"), the last of each partition and day ("day"), or all ("all"). A range
 * keeps daily partitions whose day is in it, and the others fetched on a day in it.
 */
export async function* replaySources(
  db: Kysely<Database>,
  stream: string,
  scope: "partition" | "day" | "all",
  range: { readonly from?: string; readonly to?: string },
): AsyncGenerator<ReplaySourceRow[]> {
  const day = sql`coalesce(partition_data->>'day', extracted_on::text)`;
  const group =
    scope === "partition"
      ? sql`distinct on (partition)`
      : scope === "day"
        ? sql`distinct on (partition, extracted_on)`
        : sql``;
  const order =
    scope === "partition"
      ? sql`order by partition, run_id desc`
      : scope === "day"
        ? sql`order by partition, extracted_on, run_id desc`
        : sql``;
  let after = "0";
  for (;;) {
    const { rows } = await sql<{
      run_id: string;
      partition: string;
      partition_data: unknown;
      extracted_on: string;
      response_ids: string[];
      pages: string[] | null;
    }>`
      with chosen as (
        select ${group} run_id, partition, partition_data, extracted_on::text as extracted_on,
               response_ids, pages
          from etl.sync_runs
         where stream = ${stream} and kind = 'sync' and status = 'succeeded'
           and response_ids is not null
           and (${range.from ?? null}::text is null or ${day} >= ${range.from ?? null})
           and (${range.to ?? null}::text is null or ${day} <= ${range.to ?? null})
         ${order}
      )
      select * from chosen where run_id > ${after} order by run_id limit ${SLICE}`.execute(db);
    if (rows.length === 0) return;
    yield rows.map((row) => ({
      attemptId: row.run_id,
      partition: row.partition,
      partitionData: row.partition_data,
      extractedOn: row.extracted_on,
      responseIds: row.response_ids,
      pages: row.pages,
    }));
    after = rows.at(-1)?.run_id ?? after;
    if (rows.length < SLICE) return;
  }
}
