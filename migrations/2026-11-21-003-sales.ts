import { type Kysely, sql } from "kysely";
import { commentOn } from "./support/comment-on.js";

const SELECTION = `'dsp', 'territory', 'label', 'product', 'asset'`;
const SALE = `'stream', 'download'`;
const SYNCED_AT = "When this row's content last changed (set on insert and on a real update only).";
const DAY = "The day the figures cover (UTC calendar day of the upstream's report).";
const SELECTION_TYPE = "What the figures are grouped by: dsp, territory, label, product or asset.";
const SALE_TYPE = "stream or download.";

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create schema if not exists sales`.execute(db);
  await sql`comment on schema sales is 'Sales trends: streams and downloads by day.'`.execute(db);

  await sql`
    create table sales.trend_totals (
      day date not null,
      selection_type text not null check (selection_type in (${sql.raw(SELECTION)})),
      stream_count bigint,
      download_count bigint,
      stream_percentage numeric,
      download_percentage numeric,
      raw jsonb not null,
      synced_at timestamptz not null default now(),
      primary key (day, selection_type)
    )`.execute(db);
  await commentOn(
    db,
    "sales.trend_totals",
    "Total streams and downloads per day, as reported for each selection type. One row per (day, selection_type).",
    {
      day: DAY,
      selection_type: SELECTION_TYPE,
      stream_count: "Streams that day.",
      download_count: "Downloads that day.",
      stream_percentage:
        "The upstream's stream percentage (its base is not documented: a share or a change, may be negative).",
      download_percentage: "The upstream's download percentage (same caveat).",
      raw: "The upstream's record exactly as received.",
      synced_at: SYNCED_AT,
    },
  );

  await sql`
    create table sales.trend_items (
      day date not null,
      selection_type text not null check (selection_type in (${sql.raw(SELECTION)})),
      sale_type text not null check (sale_type in (${sql.raw(SALE)})),
      item_id text not null,
      item_name text,
      count bigint,
      percentage numeric,
      raw jsonb not null,
      synced_at timestamptz not null default now(),
      primary key (day, selection_type, sale_type, item_id)
    )`.execute(db);
  await sql`create index trend_items_item on sales.trend_items (selection_type, item_id, day)`.execute(
    db,
  );
  await commentOn(
    db,
    "sales.trend_items",
    "Streams or downloads per day for each entity of a selection type (each DSP, territory, label, product or asset). A day's list replaces what was stored for it: an entity the upstream no longer reports is removed.",
    {
      day: DAY,
      selection_type: SELECTION_TYPE,
      sale_type: SALE_TYPE,
      item_id:
        "The entity's id as text: catalogue.dsps.dsp_id, catalogue.territories.code, a label id, catalogue.products.product_id or catalogue.assets.asset_id.",
      item_name: "The entity's name as the upstream reported it.",
      count: "Streams or downloads of the entity that day.",
      percentage: "The entity's share of the day's total, in percent, as reported.",
      raw: "The upstream's record exactly as received.",
      synced_at: SYNCED_AT,
    },
  );

  await sql`
    create table sales.trend_chart_points (
      day date not null,
      selection_type text not null check (selection_type in (${sql.raw(SELECTION)})),
      sale_type text not null check (sale_type in (${sql.raw(SALE)})),
      series text not null,
      total bigint,
      raw jsonb not null,
      synced_at timestamptz not null default now(),
      primary key (day, selection_type, sale_type, series)
    )`.execute(db);
  await commentOn(
    db,
    "sales.trend_chart_points",
    "The upstream's chart series mapped to days: a series named Total and one per top entity. One row per (day, selection_type, sale_type, series).",
    {
      day: "The day of the chart step.",
      selection_type: SELECTION_TYPE,
      sale_type: SALE_TYPE,
      series: "Series name: Total, or the name of a top entity.",
      total: "The series' value for that day.",
      raw: "The whole series as received (all its steps).",
      synced_at: SYNCED_AT,
    },
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop schema sales cascade`.execute(db);
}
