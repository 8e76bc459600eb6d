import { type Kysely, sql } from "kysely";
import type { Database } from "./schema.js";

type Db = Kysely<Database>;

/** A change of etl.schema_changes as the reports show it. */
export interface RecordedSchemaChange {
  readonly table: string;
  readonly column: string;
  readonly change: "added" | "widened";
  /** The type before a widening; null when added. */
  readonly from: string | null;
  readonly to: string;
  readonly changedAt: Date;
}

interface ChangeRow {
  table_name: string;
  column_name: string;
  change: "added" | "widened";
  from_type: string | null;
  to_type: string;
  changed_at: Date;
}

const CHANGE_COLUMNS = sql`c.table_name, c.column_name, c.change, c.from_type, c.to_type,
  c.changed_at`;

function recorded(row: ChangeRow): RecordedSchemaChange {
  return {
    table: row.table_name,
    column: row.column_name,
    change: row.change,
    from: row.from_type,
    to: row.to_type,
    changedAt: row.changed_at,
  };
}

/**
 * The changes a run's attempts made, in the order they were made. etl.schema_changes names the
 * attempt (etl.attempts.attempt_id, as text), and the attempt names its run.
 */
export async function runSchemaChanges(db: Db, runId: string): Promise<RecordedSchemaChange[]> {
  const { rows } = await sql<ChangeRow>`select ${CHANGE_COLUMNS}
      from etl.attempts s join etl.schema_changes c on c.attempt_id = s.attempt_id::text
     where s.run = ${runId} order by c.change_id`.execute(db);
  return rows.map(recorded);
}

/** The changes made since a time: how many of each kind, and the latest few, newest first. */
export interface RecentSchemaChanges {
  readonly added: number;
  readonly widened: number;
  readonly latest: readonly RecordedSchemaChange[];
}

/**
 * A table's changes are few (one per column, and a widening or two): a scan of
 * etl.schema_changes costs nothing, so no index on changed_at.
 */
export async function recentSchemaChanges(
  db: Db,
  since: Date,
  latest: number,
): Promise<RecentSchemaChanges> {
  const { rows: counts } = await sql<{ added: number; widened: number }>`
    select count(*) filter (where change = 'added')::int as added,
           count(*) filter (where change = 'widened')::int as widened
      from etl.schema_changes where changed_at >= ${since}`.execute(db);
  const { rows } = await sql<ChangeRow>`select ${CHANGE_COLUMNS} from etl.schema_changes c
     where c.changed_at >= ${since} order by c.change_id desc limit ${latest}`.execute(db);
  return {
    added: counts[0]?.added ?? 0,
    widened: counts[0]?.widened ?? 0,
    latest: rows.map(recorded),
  };
}

/** How many changes of each kind every table has had, from the first: what /metrics counts. */
export interface SchemaChangeCount {
  readonly table: string;
  readonly change: "added" | "widened";
  readonly count: number;
}

export async function schemaChangeCounts(db: Db): Promise<SchemaChangeCount[]> {
  const { rows } = await sql<{ table_name: string; change: "added" | "widened"; count: number }>`
    select table_name, change, count(*)::int as count from etl.schema_changes
     group by table_name, change order by table_name, change`.execute(db);
  return rows.map((row) => ({ table: row.table_name, change: row.change, count: row.count }));
}
