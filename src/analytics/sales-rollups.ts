import { createHash } from "node:crypto";
import { type Kysely, type RawBuilder, sql } from "kysely";
import { AnalyticsBusyError } from "../errors.js";
import { SCHEMA_LOCK_WAIT, type SchemaLockWait, withLockWait } from "../warehouse/lock-wait.js";
import { builtDefinitions, recordBuilt } from "./analytics-builds.js";
import { type ResolvedRoles, rolesAsRecorded } from "./resolved-roles.js";
import { TREND_ITEM_LABEL, TREND_ITEM_UNITS } from "./roles.js";

/**
 * Each day's streams and downloads per entity of one selection type, from the list items through
 * the units and label roles, on the days `days` keeps (a condition on `day`): the stream list's
 * item and the download list's grouped by entity (an entity is listed once per list and day), so
 * that the items are read once. A sale type the entity was not listed in is 0; one whose item
 * carries no readable units (or whose units are not resolved) is null: unknown, not none. What
 * the daily roll-up holds, and what a view reads of a stale day.
 */
export function itemDaysFromItems(
  roles: ResolvedRoles,
  selection: string,
  days: RawBuilder<unknown>,
): RawBuilder<unknown> {
  const figure = (sale: string) => {
    const listed = sql`sale_type = ${sql.lit(sale)}`;
    const units = roles.value(TREND_ITEM_UNITS, `${selection}.${sale}`);
    return sql`(case when count(*) filter (where ${listed}) = 0 then 0
                     else max(${units}) filter (where ${listed}) end)::bigint`;
  };
  return sql`
    select day, item_id, case when item_id ~ '^[0-9]{1,18}$' then item_id::bigint end as numeric_id,
           max(${roles.value(TREND_ITEM_LABEL, selection)}) as reported_name,
           ${figure("stream")} as streams, ${figure("download")} as downloads
      from sales.trend_items
     where selection_type = ${sql.lit(selection)} and ${days}
     group by day, item_id`;
}

const staleDays = (selection: string) =>
  sql`select day from sales.trend_item_stale_days where selection_type = ${sql.lit(selection)}`;

/**
 * The daily figures of one selection type, exact whatever the roll-up's state: a day rolled up is
 * read from sales.trend_item_days, a stale one (its items written since) from the items. A stale
 * day's rows carry the day of the stale list, so that a reader's filter on `day` is applied to
 * each stale day, not to each of its items.
 */
export function itemDays(roles: ResolvedRoles, selection: string): RawBuilder<unknown> {
  return sql`
    select day, item_id, numeric_id, reported_name, streams, downloads
      from sales.trend_item_days
     where selection_type = ${sql.lit(selection)} and day not in (${staleDays(selection)})
    union all
    select stale.day, d.item_id, d.numeric_id, d.reported_name, d.streams, d.downloads
      from (select distinct day from (${staleDays(selection)}) s) stale
     cross join lateral (${itemDaysFromItems(roles, selection, sql`day = stale.day`)}) d`;
}

/**
 * Each entity's month from its days `days` keeps (a set of rows of the daily figures): a day
 * whose figure is unknown makes the month's unknown.
 */
function monthOfDays(days: RawBuilder<unknown>): RawBuilder<unknown> {
  const figure = (name: string) =>
    sql`case when count(${sql.ref(name)}) = count(*) then sum(${sql.ref(name)}) end::bigint`;
  return sql`
    select item_id, max(numeric_id) as numeric_id, ${figure("streams")} as streams,
           ${figure("downloads")} as downloads, count(*)::integer as days_listed
      from ${days}
     group by item_id`;
}

/**
 * The monthly figures of one selection type, exact whatever the roll-up's state: a month with
 * no stale day is read from sales.trend_item_months, another summed from its days.
 */
export function itemMonths(roles: ResolvedRoles, selection: string): RawBuilder<unknown> {
  const staleMonths = sql`select date_trunc('month', day)::date as month_start
    from (${staleDays(selection)}) s`;
  return sql`
    select month_start, item_id, numeric_id, streams, downloads, days_listed
      from sales.trend_item_months
     where selection_type = ${sql.lit(selection)} and month_start not in (${staleMonths})
    union all
    select m.month_start, d.item_id, d.numeric_id, d.streams, d.downloads, d.days_listed
      from (select distinct month_start from (${staleMonths}) s) m
     cross join lateral (${monthOfDays(sql`(${itemDays(roles, selection)}) days
        where day >= m.month_start and day < (m.month_start + interval '1 month')::date`)}) d`;
}

/** Which column each figure of the roll-ups is read from: when it changes, every day is stale. */
function rollupSource(roles: ResolvedRoles): string {
  const columns = [TREND_ITEM_UNITS, TREND_ITEM_LABEL].flatMap((role) =>
    role.scopes.map((scope) => [role.name, scope, roles.resolution(role, scope)?.column ?? null]),
  );
  return createHash("sha256").update(JSON.stringify(columns)).digest("hex");
}

const ROLLUP = "sales.trend_item_days";

/**
 * Marks every day stale, in the caller's transaction, when the roles' columns the roll-ups are
 * summed from changed since they were last rolled up: the views then read the items until
 * rollUpStaleDays has summed them again through the new columns. The roll-up marked, if it was.
 */
export async function markRollupsIfRolesChanged(
  trx: Kysely<unknown>,
  roles: ResolvedRoles,
): Promise<string[]> {
  const source = rollupSource(roles);
  if ((await builtDefinitions(trx)).get(ROLLUP) === source) return [];
  await sql`
    insert into sales.trend_item_stale_days (selection_type, day)
    select selection_type, day from sales.trend_items
    union
    select selection_type, day from sales.trend_item_days`.execute(trx);
  await recordBuilt(trx, ROLLUP, source);
  return [ROLLUP];
}

/** One selection type's month with stale days: the roll-ups' unit of work. */
interface StaleMonth {
  readonly selection: string;
  readonly month: string;
}

/**
 * Rolls one month of one selection type up again in the caller's transaction: takes away its
 * stale marks, sums its stale days from the items and the month from its days. A day marked by a
 * writer after the marks were taken stays marked: the views read it from the items.
 */
async function rollUpMonth(trx: Kysely<unknown>, { selection, month }: StaleMonth) {
  const roles = await rolesAsRecorded(trx);
  // A month of a large account's tracks is grouped and summed in memory, not on disk.
  await sql`set local work_mem = '64MB'`.execute(trx);
  const inMonth = sql`day >= ${month}::date and day < (${month}::date + interval '1 month')::date`;
  const { rows } = await sql<{ day: string }>`
    with taken as (
      delete from sales.trend_item_stale_days
       where selection_type = ${selection} and ${inMonth}
      returning day)
    select distinct to_char(day, 'YYYY-MM-DD') as day from taken`.execute(trx);
  const days = rows.map((row) => row.day);
  if (days.length === 0) return 0;
  const taken = sql`day = any(${days}::date[])`;
  await sql`delete from sales.trend_item_days
    where selection_type = ${selection} and ${taken}`.execute(trx);
  await sql`
    insert into sales.trend_item_days
      (selection_type, day, item_id, numeric_id, reported_name, streams, downloads)
    select ${selection}, d.* from (${itemDaysFromItems(roles, selection, taken)}) d`.execute(trx);
  await sql`delete from sales.trend_item_months
    where selection_type = ${selection} and month_start = ${month}::date`.execute(trx);
  await sql`
    insert into sales.trend_item_months
      (selection_type, month_start, item_id, numeric_id, streams, downloads, days_listed)
    select ${selection}, ${month}::date, m.*
      from (${monthOfDays(sql`sales.trend_item_days
             where selection_type = ${selection} and ${inMonth}`)}) m`.execute(trx);
  return days.length;
}

/** What rolling up did: the days summed again, in how many months. */
export interface RollUp {
  readonly days: number;
  readonly months: number;
}

/** Nothing rolled up. */
export const NO_ROLL_UP: RollUp = { days: 0, months: 0 };

/**
 * Rolls every stale day up again, a month of a selection type per transaction (one at a time
 * beside the roles' settlement, which may change what they are summed from), oldest marks
 * first, until none is left. Readers are never wrong meanwhile: a stale day is read from the items.
 */
export async function rollUpStaleDays<DB>(
  db: Kysely<DB>,
  wait: SchemaLockWait = SCHEMA_LOCK_WAIT,
): Promise<RollUp> {
  const warehouse = db as Kysely<unknown>;
  let days = 0;
  let months = 0;
  for (;;) {
    const next = await sql<StaleMonth>`
      select selection_type as selection, to_char(day, 'YYYY-MM-01') as month
        from sales.trend_item_stale_days order by marked_at limit 1`.execute(warehouse);
    const [stale] = next.rows;
    if (!stale) return { days, months };
    const rolled = await withLockWait(
      warehouse,
      "analytics",
      wait,
      (trx) => rollUpMonth(trx, stale),
      (attempts, cause) => new AnalyticsBusyError(attempts, cause),
    );
    // Another process may have rolled the month up first.
    if (rolled > 0) months += 1;
    days += rolled;
  }
}
