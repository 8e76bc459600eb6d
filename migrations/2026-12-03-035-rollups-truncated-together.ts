import { type Kysely, sql } from "kysely";

/**
 * A truncate of the list items that names a roll-up too (`truncate sales.trend_items,
 * sales.trend_item_days`, as a script emptying the sales schema writes it) failed: the items'
 * truncate trigger could not truncate a table the same statement holds. The trigger now empties
 * such a roll-up row by row instead: the statement has truncated it already, or its own rows
 * are the few a roll-up holds beside the items.
 * Only replaces a function's body.
 */

const ROLLUPS = ["sales.trend_item_days", "sales.trend_item_months", "sales.trend_item_stale_days"];

/** The trigger's function: the roll-ups truncated, and `fallback` where that cannot be. */
function forgetRollups(db: Kysely<unknown>, fallback: string) {
  return sql`
    create or replace function sales.forget_trend_item_rollups() returns trigger language plpgsql
    security definer set search_path = pg_catalog, pg_temp as $$
    begin
      truncate ${sql.raw(ROLLUPS.join(", "))};
      return null;${sql.raw(fallback)}
    end
    $$`.execute(db);
}

export async function up(db: Kysely<unknown>): Promise<void> {
  const deletes = ROLLUPS.map((table) => `delete from ${table};`).join(" ");
  await forgetRollups(db, `\n    exception when object_in_use then ${deletes} return null;`);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await forgetRollups(db, "");
}
