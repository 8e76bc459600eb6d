import { utcMinuteOf } from "../time/calendar.js";
import type { RecentSchemaChanges } from "../warehouse/schema-changes.js";
import { table } from "./output.js";

/** A column added or widened, as a sync knows it and etl.schema_changes records it. */
export interface SchemaChangeFacts {
  readonly table: string;
  readonly column: string;
  readonly change: "added" | "widened";
  readonly from: string | null;
  readonly to: string;
}

/** How far back `etl status` counts the columns added or widened. */
export const RECENT_SCHEMA_CHANGE_DAYS = 7;

/** As many changes as a run's block lists, like its partitions that need attention. */
const LISTED = 20;

/** "3 columns added, 1 widened"; "1 column widened". */
function counted(added: number, widened: number): string {
  const columns = (n: number) => `${n} ${n === 1 ? "column" : "columns"}`;
  if (added === 0) return `${columns(widened)} widened`;
  return `${columns(added)} added${widened > 0 ? `, ${widened} widened` : ""}`;
}

/** `table.column: type` for a column added, `table.column: from → to` for one widened. */
function changeText(change: SchemaChangeFacts): string {
  const type = change.from === null ? change.to : `${change.from} → ${change.to}`;
  return `${change.table}.${change.column}: ${type}`;
}

/**
 * What a run changed in the tables' columns, for its summary (a sync's, `runs show`'s, a waited
 * backfill's): a short block that is news, not a warning, so it never counts as attention and
 * never changes the exit code. Nothing when the run changed no column.
 */
export function runSchemaChangeLines(changes: readonly SchemaChangeFacts[]): string[] {
  if (changes.length === 0) return [];
  const widened = changes.filter((c) => c.change === "widened").length;
  return [
    "",
    `${counted(changes.length - widened, widened)} (etl.schema_changes):`,
    ...changes.slice(0, LISTED).map((change) => `  ${changeText(change)}`),
    ...(changes.length > LISTED
      ? [`  ... and ${changes.length - LISTED} more (etl.schema_changes)`]
      : []),
  ];
}

/**
 * `etl status`'s lines of the changes of the last RECENT_SCHEMA_CHANGE_DAYS days: how many, and
 * the latest with when they were made. Nothing when there were none: no change is no news.
 */
export function recentSchemaChangeLines(recent: RecentSchemaChanges): string[] {
  const days = RECENT_SCHEMA_CHANGE_DAYS;
  const total = recent.added + recent.widened;
  if (total === 0) return [];
  const earlier = total - recent.latest.length;
  return [
    `schema changes in the last ${days} days: ${counted(recent.added, recent.widened)} (events, not warnings; etl.schema_changes), latest first (UTC):`,
    ...table(recent.latest.map((c) => [utcMinuteOf(c.changedAt), changeText(c)])).map(
      (line) => `  ${line}`,
    ),
    ...(earlier > 0 ? [`  ... and ${earlier} earlier`] : []),
  ];
}
