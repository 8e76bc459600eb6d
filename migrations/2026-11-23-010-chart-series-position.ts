import { type Kysely, sql } from "kysely";
import { commentOn } from "./support/comment-on.js";

export async function up(db: Kysely<unknown>): Promise<void> {
  // Two top entities may share a name (two assets with one title): a series is its place in the
  // chart, its name only a column. Rows stored before get places in name order (Total first);
  // a re-sync or `etl replay --only trend_chart_points` gives them the upstream's.
  await sql`alter table sales.trend_chart_points add column series_position smallint`.execute(db);
  await sql`
    update sales.trend_chart_points t set series_position = p.position
      from (select day, selection_type, sale_type, series,
                   row_number() over (partition by day, selection_type, sale_type
                                      order by series <> 'Total', series) - 1 as position
              from sales.trend_chart_points) p
     where (t.day, t.selection_type, t.sale_type, t.series)
         = (p.day, p.selection_type, p.sale_type, p.series)`.execute(db);
  await sql`alter table sales.trend_chart_points
    drop constraint trend_chart_points_pkey,
    alter column series_position set not null,
    add primary key (day, selection_type, sale_type, series_position)`.execute(db);
  await sql`alter table sales.trend_chart_points alter column series drop not null`.execute(db);
  await commentOn(
    db,
    "sales.trend_chart_points",
    "The upstream's chart series mapped to days: a series named Total and one per top entity. One row per (day, selection_type, sale_type, series_position).",
    {
      series_position:
        "The series' place in the upstream's chart (0 is usually Total): two top entities may share a name.",
      series: "Series name: Total, or the name of a top entity; null when the upstream gave none.",
    },
  );

  await sql`
    create table etl.page_sizes (
      operation text primary key,
      cap integer,
      ending integer,
      learned_at timestamptz not null default now()
    )`.execute(db);
  await commentOn(
    db,
    "etl.page_sizes",
    "What the upstream has shown of its page sizes per operation, kept so every run pages the same way: a cap below the limit asked (served without saying so), and the longest short page known to end a list.",
    {
      operation: "The upstream operation (e.g. artistStats.charts).",
      cap: "Most records one page holds, when fewer than asked: a page this long is not the last.",
      ending:
        "Longest short page seen to end a list (the next page was empty): shorter ones end lists too.",
      learned_at: "When this was last learned.",
    },
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table etl.page_sizes`.execute(db);
  await sql`delete from sales.trend_chart_points where series is null`.execute(db);
  await sql`alter table sales.trend_chart_points
    alter column series set not null,
    drop constraint trend_chart_points_pkey,
    add primary key (day, selection_type, sale_type, series)`.execute(db);
  await sql`alter table sales.trend_chart_points drop column series_position`.execute(db);
}
