import { type Kysely, sql } from "kysely";
import { commentOn } from "./support/comment-on.js";
import { commentOnView } from "./support/comment-on-view.js";

/**
 * A calendar BI tools join days to (week, month, quarter, year), the foreign keys that can be
 * enforced without ever refusing a row, and the join paths that cannot, as a view tools and
 * people can read.
 */

/** Wide enough for any start_date and any day a partition asks for; 84,000 rows, about 10 MB. */
const FIRST_DAY = "1970-01-01";
const LAST_DAY = "2199-12-31";

/** Fact tables whose day is the partition's own (a day the pipeline asked for), never upstream text. */
const PARTITION_DAYS = ["sales.trend_totals", "sales.trend_items", "sales.trend_chart_points"];

/**
 * Joins the warehouse relies on that no constraint can hold: the parent may be missing (a trend
 * item naming a product the UPC look-ups do not cover, an artist no longer tracked whose history
 * stays), and a foreign key would refuse the fact row, or delete history with its parent.
 */
const DOCUMENTED = [
  [
    "catalogue.assets",
    "product_id",
    "catalogue.products",
    "product_id",
    "The product a track was listed in.",
  ],
  [
    "sales.trend_items",
    "item_id",
    "catalogue.dsps",
    "dsp_id",
    "Where selection_type = 'dsp' (item_id is the DSP id as text; analytics.daily_sales_by_dsp casts it).",
  ],
  [
    "sales.trend_items",
    "item_id",
    "catalogue.territories",
    "code",
    "Where selection_type = 'territory'.",
  ],
  [
    "sales.trend_items",
    "item_id",
    "catalogue.products",
    "product_id",
    "Where selection_type = 'product' (as text; analytics.daily_sales_by_product casts it).",
  ],
  [
    "sales.trend_items",
    "item_id",
    "catalogue.assets",
    "asset_id",
    "Where selection_type = 'asset' (as text; analytics.asset_daily_streams casts it).",
  ],
  [
    "catalogue.artists",
    "social_artist_id",
    "artist_stats.artists",
    "artist_id",
    "The catalogue artist's id in the artist statistics API.",
  ],
  [
    "artist_stats.platform_stats",
    "artist_id",
    "artist_stats.artists",
    "artist_id",
    "An artist no longer tracked keeps its history here.",
  ],
  ["artist_stats.cm_stats", "artist_id", "artist_stats.artists", "artist_id", "As above."],
  ["artist_stats.urls", "artist_id", "artist_stats.artists", "artist_id", "As above."],
  ["artist_stats.audience_stats", "artist_id", "artist_stats.artists", "artist_id", "As above."],
  [
    "artist_stats.social_audience_stats",
    "artist_id",
    "artist_stats.artists",
    "artist_id",
    "As above.",
  ],
  [
    "artist_stats.video_market_coverage",
    "artist_id",
    "artist_stats.artists",
    "artist_id",
    "As above.",
  ],
  [
    "artist_stats.playlist_placements",
    "artist_id",
    "artist_stats.artists",
    "artist_id",
    "As above.",
  ],
  ["artist_stats.radio_airplays", "artist_id", "artist_stats.artists", "artist_id", "As above."],
  ["artist_stats.radio", "artist_id", "artist_stats.artists", "artist_id", "As above."],
  ["artist_stats.chart_entries", "artist_id", "artist_stats.artists", "artist_id", "As above."],
  [
    "artist_stats.platform_stats",
    "day",
    "analytics.calendar",
    "day",
    "Days come from the upstream's series, not from a partition.",
  ],
  [
    "royalties.payouts",
    "(created_at at time zone 'UTC')::date",
    "analytics.calendar",
    "day",
    "The UTC day a payout was created.",
  ],
  [
    "royalties.incomes",
    "period_start",
    "analytics.calendar",
    "day",
    "The first day of the income's month.",
  ],
] as const;

const WEEK_NOTE =
  "ISO 8601: weeks start on Monday; week 1 is the week holding the year's first Thursday.";

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table analytics.calendar (
      day date primary key,
      year integer not null,
      quarter integer not null,
      quarter_label text not null,
      month integer not null,
      month_start date not null,
      month_label text not null,
      month_name text not null,
      iso_year integer not null,
      iso_week integer not null,
      iso_week_label text not null,
      week_start date not null,
      iso_day_of_week integer not null,
      day_name text not null,
      is_weekend boolean not null
    )`.execute(db);
  await sql`
    insert into analytics.calendar
    select d::date,
           extract(year from d)::int,
           extract(quarter from d)::int,
           to_char(d, 'YYYY-"Q"Q'),
           extract(month from d)::int,
           date_trunc('month', d)::date,
           to_char(d, 'YYYY-MM'),
           trim(to_char(d, 'Month')),
           extract(isoyear from d)::int,
           extract(week from d)::int,
           to_char(d, 'IYYY-"W"IW'),
           date_trunc('week', d)::date,
           extract(isodow from d)::int,
           trim(to_char(d, 'Day')),
           extract(isodow from d) >= 6
      from generate_series(${FIRST_DAY}::date, ${LAST_DAY}::date, interval '1 day') as d`.execute(
    db,
  );
  await commentOn(
    db,
    "analytics.calendar",
    `One row per day from ${FIRST_DAY} to ${LAST_DAY}: join a fact's day to it to group by week, month, quarter or year. ${WEEK_NOTE} Days are UTC calendar days, as everywhere in the warehouse.`,
    {
      day: "The day (primary key). The sales facts' day columns reference it.",
      year: "Calendar year.",
      quarter: "Calendar quarter, 1 to 4.",
      quarter_label: "Year and quarter, e.g. 2026-Q1: sorts in time order.",
      month: "Month, 1 to 12.",
      month_start: "The month's first day: group by it for monthly figures.",
      month_label: "Year and month, e.g. 2026-01: sorts in time order.",
      month_name: "The month's English name.",
      iso_year: `The ISO week-numbering year: differs from year in the days around New Year. ${WEEK_NOTE}`,
      iso_week: `ISO week number, 1 to 53. ${WEEK_NOTE}`,
      iso_week_label: "ISO year and week, e.g. 2026-W01: sorts in time order.",
      week_start: "The Monday of the day's ISO week: group by it for weekly figures.",
      iso_day_of_week: "1 (Monday) to 7 (Sunday).",
      day_name: "The day's English name.",
      is_weekend: "Saturday or Sunday.",
    },
  );

  // NOT VALID, then VALIDATE: checking existing rows takes a lock that lets the workers write on.
  for (const table of PARTITION_DAYS) {
    const name = `${table.split(".")[1]}_day_calendar`;
    await sql`alter table ${sql.table(table)} add constraint ${sql.id(name)}
      foreign key (day) references analytics.calendar (day) not valid`.execute(db);
    await sql`alter table ${sql.table(table)} validate constraint ${sql.id(name)}`.execute(db);
  }

  await sql`
    create view analytics.join_paths as
    select fn.nspname || '.' || fc.relname as from_table,
           (select string_agg(a.attname, ', ' order by k.i)
              from unnest(c.conkey) with ordinality k(attnum, i)
              join pg_attribute a on a.attrelid = c.conrelid and a.attnum = k.attnum) as from_columns,
           tn.nspname || '.' || tc.relname as to_table,
           (select string_agg(a.attname, ', ' order by k.i)
              from unnest(c.confkey) with ordinality k(attnum, i)
              join pg_attribute a on a.attrelid = c.confrelid and a.attnum = k.attnum) as to_columns,
           true as enforced,
           'A foreign key (' || c.conname || ').' as note
      from pg_constraint c
      join pg_class fc on fc.oid = c.conrelid
      join pg_namespace fn on fn.oid = fc.relnamespace
      join pg_class tc on tc.oid = c.confrelid
      join pg_namespace tn on tn.oid = tc.relnamespace
     where c.contype = 'f'
       and fn.nspname in ('catalogue', 'sales', 'artist_stats', 'royalties', 'analytics')
    union all
    select from_table, from_columns, to_table, to_columns, false, note
      from (values ${sql.join(
        DOCUMENTED.map(
          ([from, fromColumns, to, toColumns, note]) =>
            sql`(${sql.lit(from)}, ${sql.lit(fromColumns)}, ${sql.lit(to)}, ${sql.lit(toColumns)}, ${sql.lit(note)})`,
        ),
      )}) as documented (from_table, from_columns, to_table, to_columns, note)`.execute(db);
  await commentOnView(
    db,
    "analytics.join_paths",
    "How the warehouse's tables join: the foreign keys (enforced, which BI tools such as Metabase pick up by themselves) and the joins no constraint can hold (the parent may be missing: declare them in the tool, e.g. Metabase's Table Metadata > Foreign Key). See docs/warehouse.md.",
    {
      from_table: "The table holding the reference (the fact, or the child).",
      from_columns:
        "Its columns, or an expression where a column needs one (a timestamp's UTC day).",
      to_table: "The table referred to (the dimension, or the parent).",
      to_columns: "The columns referred to.",
      enforced: "True for a foreign key Postgres enforces; false for a join path it cannot.",
      note: "What the join means, and any condition on it.",
    },
  );

  await sql`
    create view analytics.weekly_sales as
    select c.week_start, c.iso_year, c.iso_week, c.iso_week_label,
           sum(s.streams)::bigint as streams, sum(s.downloads)::bigint as downloads,
           count(distinct s.day)::int as days_reported
      from analytics.daily_sales_by_dsp s
      join analytics.calendar c on c.day = s.day
     group by c.week_start, c.iso_year, c.iso_week, c.iso_week_label`.execute(db);
  await commentOnView(
    db,
    "analytics.weekly_sales",
    "Streams and downloads per ISO week, all DSPs together (from analytics.daily_sales_by_dsp and analytics.calendar). A week at the edge of the synced range is partial: see days_reported.",
    {
      week_start: "The week's Monday.",
      iso_year: "The ISO week-numbering year.",
      iso_week: "ISO week number, 1 to 53.",
      iso_week_label: "e.g. 2026-W01.",
      streams: "Streams in the week, summed over DSPs.",
      downloads: "Downloads in the week, summed over DSPs.",
      days_reported: "Days of the week with sales synced (7 for a whole week).",
    },
  );

  await sql`
    create view analytics.monthly_sales_by_dsp as
    select c.month_start, c.month_label, c.quarter_label, c.year, s.dsp_id,
           coalesce(max(s.dsp_name), max(s.reported_name)) as dsp,
           sum(s.streams)::bigint as streams, sum(s.downloads)::bigint as downloads,
           count(distinct s.day)::int as days_reported
      from analytics.daily_sales_by_dsp s
      join analytics.calendar c on c.day = s.day
     group by c.month_start, c.month_label, c.quarter_label, c.year, s.dsp_id`.execute(db);
  await commentOnView(
    db,
    "analytics.monthly_sales_by_dsp",
    "Streams and downloads per month and DSP (from analytics.daily_sales_by_dsp and analytics.calendar); roll up to quarters with quarter_label. A month at the edge of the synced range is partial: see days_reported.",
    {
      month_start: "The month's first day.",
      month_label: "e.g. 2026-01.",
      quarter_label: "e.g. 2026-Q1.",
      year: "Calendar year.",
      dsp_id: "The DSP's id (catalogue.dsps.dsp_id).",
      dsp: "The DSP's name in catalogue.dsps, else as the sales trends reported it.",
      streams: "Streams in the month on the DSP.",
      downloads: "Downloads in the month on the DSP.",
      days_reported: "Days of the month with sales of the DSP synced.",
    },
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop view analytics.monthly_sales_by_dsp, analytics.weekly_sales, analytics.join_paths`.execute(
    db,
  );
  for (const table of PARTITION_DAYS) {
    const name = `${table.split(".")[1]}_day_calendar`;
    await sql`alter table ${sql.table(table)} drop constraint ${sql.id(name)}`.execute(db);
  }
  await sql`drop table analytics.calendar`.execute(db);
}
