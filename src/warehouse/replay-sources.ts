import { type Kysely, type RawBuilder, sql } from "kysely";
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
 *
 * A sync is the last when no later one of its partition (and day) qualifies: asked of each
 * sync a slice reads, through the partition's own attempts, so that a slice costs what it
 * holds. Choosing the last of every partition first and then slicing the choice would sort all
 * of the stream's syncs again for every slice: a year's trends, 150 times over.
 */
export async function* replaySources(
  db: Kysely<Database>,
  stream: string,
  scope: "partition" | "day" | "all",
  range: { readonly from?: string; readonly to?: string },
  slice = SLICE,
): AsyncGenerator<ReplaySourceRow[]> {
  const qualifies = (run: string) => {
    const day = sql`coalesce(${sql.ref(`${run}.partition_data`)}->>'day', ${sql.ref(`${run}.extracted_on`)}::text)`;
    return sql`${sql.ref(`${run}.kind`)} = 'sync' and ${sql.ref(`${run}.status`)} = 'succeeded'
      and ${sql.ref(`${run}.response_ids`)} is not null
      and (${range.from ?? null}::text is null or ${day} >= ${range.from ?? null})
      and (${range.to ?? null}::text is null or ${day} <= ${range.to ?? null})`;
  };
  const last: RawBuilder<unknown> =
    scope === "all"
      ? sql``
      : sql`and not exists (
          select 1 from etl.sync_runs later
           where later.stream = s.stream and later.partition = s.partition
             and later.run_id > s.run_id and ${qualifies("later")}
             ${scope === "day" ? sql`and later.extracted_on = s.extracted_on` : sql``})`;
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
      select s.run_id, s.partition, s.partition_data, s.extracted_on::text as extracted_on,
             s.response_ids, s.pages
        from etl.sync_runs s
       where s.stream = ${stream} and s.run_id > ${after} and ${qualifies("s")}
         ${last}
       order by s.run_id
       limit ${slice}`.execute(db);
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
    if (rows.length < slice) return;
  }
}
