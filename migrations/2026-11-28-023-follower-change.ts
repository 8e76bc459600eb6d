import { type Kysely, sql } from "kysely";

/**
 * analytics.artist_follower_growth's reported_change falls back on the change computed from the
 * values where the upstream reports none (an upstream that sends daily_diff: null had it null on
 * every row), and says which it is in a new last column.
 */

const CHANGE = sql`case when lag(g.day) over w = g.day - 1 then g.value - lag(g.value) over w end`;

const follower_growth = (fallBack: boolean) => sql`
  select g.artist_id, g.source, g.metric, g.day, g.value, ${CHANGE} as change,
         ${fallBack ? sql`coalesce(g.daily_diff, ${CHANGE})` : sql`g.daily_diff`} as reported_change,
         a.name as artist_name
         ${fallBack ? sql`, g.daily_diff is not null as change_reported` : sql``}
    from (select artist_id, source, metric, day, value,
                 case when jsonb_typeof(raw -> 'daily_diff') = 'number'
                      then (raw ->> 'daily_diff')::numeric end as daily_diff
            from artist_stats.platform_stats) g
    left join artist_stats.artists a on a.artist_id = g.artist_id
   where g.metric in ('followers', 'subscribers', 'fans', 'likes')
  window w as (partition by g.artist_id, g.source, g.metric order by g.day)`;

const REPORTED_CHANGE =
  "The change against the day before as the upstream reported it: the point's daily_diff in raw (a field the spec does not show); where the upstream sends no number by that name, the change computed from the values (as change; see change_reported).";
const CHANGE_REPORTED =
  "True when reported_change is the upstream's daily_diff; false when the upstream sent none and it is computed from the values.";
const REPORTED_CHANGE_BEFORE =
  "The change against the day before as the upstream reported it: the point's daily_diff in raw (a field the spec does not show); null when the upstream sends no number by that name.";

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create or replace view analytics.artist_follower_growth as ${follower_growth(true)}`.execute(
    db,
  );
  await sql`comment on column analytics.artist_follower_growth.reported_change is ${sql.lit(REPORTED_CHANGE)}`.execute(
    db,
  );
  await sql`comment on column analytics.artist_follower_growth.change_reported is ${sql.lit(CHANGE_REPORTED)}`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  // A view loses a column only by being made again: its comments are kept across.
  const { rows } = await sql<{ column: string | null; comment: string }>`
    select a.attname as column, d.description as comment
      from pg_description d
      left join pg_attribute a on a.attrelid = d.objoid and a.attnum = d.objsubid
     where d.objoid = 'analytics.artist_follower_growth'::regclass`.execute(db);
  await sql`drop view analytics.artist_follower_growth`.execute(db);
  await sql`create view analytics.artist_follower_growth as ${follower_growth(false)}`.execute(db);
  for (const { column, comment } of rows) {
    if (column === "change_reported") continue;
    const text = column === "reported_change" ? REPORTED_CHANGE_BEFORE : comment;
    await (
      column === null
        ? sql`comment on view analytics.artist_follower_growth is ${sql.lit(text)}`
        : sql`comment on column ${sql.id("analytics", "artist_follower_growth", column)} is ${sql.lit(text)}`
    ).execute(db);
  }
}
