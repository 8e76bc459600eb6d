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
 * Each statement reads the next `slice` qualifying syncs by attempt and asks of each, in its
 * select list, whether a later one of its partition (and day) qualifies: Postgres asks that of
 * those rows alone, through the partition's own entries (migration 029), whatever statistics it
 * holds. Asked in the where clause, the question became a join whose plan followed the
 * statistics: without them, every slice of a year's radio read the stream's whole history for
 * each sync; with them, the stream's every sync for each slice. The superseded ones are left out
 * here, so a slice may yield fewer syncs than it read, or none.
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
  const superseded: RawBuilder<boolean> =
    scope === "all"
      ? sql`false`
      : sql`exists (
          select 1 from etl.attempts later
           where later.stream = s.stream and later.partition = s.partition
             and later.attempt_id > s.attempt_id and ${qualifies("later")}
             ${scope === "day" ? sql`and later.extracted_on = s.extracted_on` : sql``})`;
  let after = "0";
  for (;;) {
    const { rows } = await sql<{
      attempt_id: string;
      partition: string;
      partition_data: unknown;
      extracted_on: string;
      response_ids: string[];
      pages: string[] | null;
      superseded: boolean;
    }>`
      select s.attempt_id, s.partition, s.partition_data, s.extracted_on::text as extracted_on,
             s.response_ids, s.pages, ${superseded} as superseded
        from etl.attempts s
       where s.stream = ${stream} and s.attempt_id > ${after} and ${qualifies("s")}
       order by s.attempt_id
       limit ${slice}`.execute(db);
    const kept = rows.filter((row) => !row.superseded);
    if (kept.length > 0) {
      yield kept.map((row) => ({
        attemptId: row.attempt_id,
        partition: row.partition,
        partitionData: row.partition_data,
        extractedOn: row.extracted_on,
        responseIds: row.response_ids,
        pages: row.pages,
      }));
    }
    after = rows.at(-1)?.attempt_id ?? after;
    if (rows.length < slice) return;
  }
}
