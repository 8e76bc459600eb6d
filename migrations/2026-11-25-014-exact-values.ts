import { type Kysely, sql } from "kysely";
import { commentOn } from "./support/comment-on.js";
import { commentOnView } from "./support/comment-on-view.js";

/**
 * No column narrower than what the upstream sends, and snapshots that come as lists:
 * - money keeps every decimal it arrives with (numeric without a fixed scale; widening loses no
 *   row, and `etl replay` re-derives what was stored as null);
 * - a snapshot that comes as a list of objects is stored one row per element (`element`);
 * - an answer that declares failure is counted with its attempt, the last one kept.
 */

const MONEY = {
  "royalties.payouts": ["amount", "fees", "net_amount", "wallet"],
  "royalties.incomes": ["amount"],
  "royalties.invoices": ["total"],
} as const;

/** Snapshot tables and their keys before `element`. */
const SNAPSHOTS = {
  "artist_stats.cm_stats": ["artist_id", "snapshot_date"],
  "artist_stats.audience_stats": ["artist_id", "domain", "snapshot_date"],
  "artist_stats.video_market_coverage": ["artist_id", "snapshot_date"],
} as const;

const ELEMENT =
  "Position of the record in the answer: 0 for a snapshot that is one object; for one that is a list of objects, each element's index (one row per element).";

/** analytics.payouts_by_status reads the money columns: it is made again over the wider ones. */
function payoutsByStatus(scale: string) {
  return sql`
    create view analytics.payouts_by_status as
    select status, currency, count(*)::bigint as payouts, sum(amount)${sql.raw(scale)} as total_amount,
           sum(fees)${sql.raw(scale)} as total_fees, sum(net_amount)${sql.raw(scale)} as total_net_amount
      from royalties.payouts
     group by status, currency`;
}

async function commentPayoutsByStatus(db: Kysely<unknown>, exact: string): Promise<void> {
  await commentOnView(
    db,
    "analytics.payouts_by_status",
    "Payouts by current status and currency, from royalties.payouts: how many, and the exact sums of amounts, fees and net amounts. One row per (status, currency). A payout counts in its current status only; its past statuses are in royalties.payout_status_history.",
    {
      status: "The payouts' current status: pending, processing, paid, failed or cancelled.",
      currency: "Currency code of the sums, e.g. EUR (sums are never mixed across currencies).",
      payouts: "Number of payouts in that status and currency.",
      total_amount: `Sum of the amounts requested (${exact}).`,
      total_fees: `Sum of the fees (${exact}).`,
      total_net_amount: `Sum of the amounts paid out after fees (${exact}).`,
    },
  );
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`drop view analytics.payouts_by_status`.execute(db);
  for (const [table, columns] of Object.entries(MONEY)) {
    const changes = columns.map((column) => sql`alter column ${sql.id(column)} type numeric`);
    await sql`alter table ${sql.table(table)} ${sql.join(changes)}`.execute(db);
    for (const column of columns) await widenComment(db, table, column);
  }
  await payoutsByStatus("").execute(db);
  await commentPayoutsByStatus(db, "exact, every decimal the upstream sent");

  for (const [table, key] of Object.entries(SNAPSHOTS)) {
    const [, name] = table.split(".") as [string, string];
    await sql`alter table ${sql.table(table)}
      add column element integer not null default 0,
      drop constraint ${sql.id(`${name}_pkey`)},
      add primary key (${sql.join([...key, "element"].map((column) => sql.id(column)))})`.execute(
      db,
    );
    await commentOn(db, table, await tableComment(db, table), { element: ELEMENT });
  }
  await sql`alter table artist_stats.video_market_coverage
    add column market_code text,
    add column market_name text,
    add column views bigint,
    add column share numeric`.execute(db);
  await commentOn(
    db,
    "artist_stats.video_market_coverage",
    "Daily copy of where the artist's videos are watched. An answer that is one object is one row (element 0: total_views, and views by market in raw.markets); an answer that is the list of markets is one row per market (market_code, market_name, views, share). One row per (artist_id, snapshot_date, element).",
    {
      market_code:
        "For a row of one market: its country code (e.g. US); null for a whole-answer row.",
      market_name: "For a row of one market: its name (e.g. United States).",
      views: "For a row of one market: video views there.",
      share:
        "For a row of one market: its share of all views, as the upstream gives it (a percentage or a fraction).",
    },
  );

  await sql`alter table etl.sync_runs
    add column failure_bodies integer not null default 0,
    add column failure_body text`.execute(db);
  await commentOn(
    db,
    "etl.sync_runs",
    "One row per attempt to sync (or replay) one partition of one stream.",
    {
      failure_bodies:
        "Answers of this attempt that were 2xx with a body declaring failure ({status: false, message} and the like): each retried, none loaded.",
      failure_body:
        "The last of those answers as received, for diagnosis; null when there was none.",
    },
  );
}

/** A money column's comment, saying what it now keeps. */
async function widenComment(db: Kysely<unknown>, table: string, column: string): Promise<void> {
  const [schema, name] = table.split(".") as [string, string];
  const { rows } = await sql<{ comment: string | null }>`
    select col_description(${table}::regclass, attnum) as comment
      from pg_attribute where attrelid = ${table}::regclass and attname = ${column}`.execute(db);
  const before = rows[0]?.comment ?? "";
  const exact = 'exact: every decimal the upstream sent, "12.3400" stays 12.3400';
  const comment = before.includes("exact, two decimals")
    ? before.replace("exact, two decimals", exact)
    : `${before} Exact: every decimal the upstream sent.`.trim();
  await sql`comment on column ${sql.id(schema, name, column)} is ${sql.lit(comment)}`.execute(db);
}

async function tableComment(db: Kysely<unknown>, table: string): Promise<string> {
  const { rows } = await sql<{ comment: string | null }>`
    select obj_description(${table}::regclass, 'pg_class') as comment`.execute(db);
  return rows[0]?.comment ?? "";
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table etl.sync_runs drop column failure_bodies, drop column failure_body`.execute(
    db,
  );
  await sql`alter table artist_stats.video_market_coverage
    drop column market_code, drop column market_name, drop column views, drop column share`.execute(
    db,
  );
  for (const [table, key] of Object.entries(SNAPSHOTS)) {
    const [, name] = table.split(".") as [string, string];
    await sql`delete from ${sql.table(table)} where element > 0`.execute(db);
    await sql`alter table ${sql.table(table)}
      drop constraint ${sql.id(`${name}_pkey`)},
      drop column element,
      add primary key (${sql.join(key.map((column) => sql.id(column)))})`.execute(db);
  }
  await sql`drop view analytics.payouts_by_status`.execute(db);
  for (const [table, columns] of Object.entries(MONEY)) {
    const changes = columns.map((column) => sql`alter column ${sql.id(column)} type numeric(14,2)`);
    await sql`alter table ${sql.table(table)} ${sql.join(changes)}`.execute(db);
  }
  await payoutsByStatus("").execute(db);
  await commentPayoutsByStatus(db, "exact, two decimals");
}
