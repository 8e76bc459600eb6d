import { type Kysely, sql } from "kysely";
import { commentOnView } from "./support/comment-on-view.js";

/**
 * Views for the questions BI users ask first. They read the tables as they are (no copies), so
 * they are always as fresh as the last sync, and work on an empty warehouse. Views run with their
 * owner's rights: a reader granted SELECT on a view needs nothing on the tables behind it.
 */

const DAY = "The day the figures cover (UTC calendar day of the upstream's report).";
const STREAMS =
  "Streams that day (0 when the upstream listed only downloads for the entity that day).";
const DOWNLOADS =
  "Downloads that day (0 when the upstream listed only streams for the entity that day).";
const REPORTED_NAME = "The entity's name as the sales trends reported it that day.";
const SALES_NOTE =
  "One row per (day, entity) the upstream reported sales for; an entity without sales that day has no row. Filter on day: the filter reaches sales.trend_items' index.";

/** A trend item's id as bigint when it is a number (catalogue ids), null otherwise: never fails. */
const NUMERIC_ID = sql`case when item_id ~ '^[0-9]{1,18}$' then item_id::bigint end`;

/** Streams and downloads side by side, per day and entity of one selection type. */
function dailySales(selectionType: string) {
  return sql`
    select day,
           item_id,
           ${NUMERIC_ID} as numeric_id,
           max(item_name) as reported_name,
           coalesce(sum(count) filter (where sale_type = 'stream'), 0)::bigint as streams,
           coalesce(sum(count) filter (where sale_type = 'download'), 0)::bigint as downloads
      from sales.trend_items
     where selection_type = ${sql.lit(selectionType)}
     group by day, item_id`;
}

/** The platform_stats metrics that count an audience (rather than plays, views or a score). */
const FOLLOWER_METRICS = ["followers", "subscribers", "fans", "likes"];

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create schema if not exists analytics`.execute(db);
  await sql`comment on schema analytics is 'Views made for BI users over the other schemas: daily sales by DSP, territory, product and asset, payouts by status, follower growth, playlist reach, and how fresh each stream is. See docs/warehouse.md.'`.execute(
    db,
  );

  await sql`
    create view analytics.daily_sales_by_dsp as
    select s.day, s.numeric_id as dsp_id, d.name as dsp_name, s.reported_name, s.streams, s.downloads
      from (${dailySales("dsp")}) s
      left join catalogue.dsps d on d.dsp_id = s.numeric_id`.execute(db);
  await commentOnView(
    db,
    "analytics.daily_sales_by_dsp",
    `Streams and downloads per day and DSP (store or streaming platform), side by side, from sales.trend_items (selection type dsp), with the DSP's name from catalogue.dsps. ${SALES_NOTE}`,
    {
      day: DAY,
      dsp_id: "The DSP's id (catalogue.dsps.dsp_id).",
      dsp_name:
        "The DSP's name in catalogue.dsps; null when the DSP look-ups did not return it (see reported_name).",
      reported_name: REPORTED_NAME,
      streams: STREAMS,
      downloads: DOWNLOADS,
    },
  );

  await sql`
    create view analytics.daily_sales_by_territory as
    select s.day, s.item_id as territory_code, t.name as territory_name, s.reported_name,
           s.streams, s.downloads
      from (${dailySales("territory")}) s
      left join catalogue.territories t on t.code = s.item_id`.execute(db);
  await commentOnView(
    db,
    "analytics.daily_sales_by_territory",
    `Streams and downloads per day and territory (country), side by side, from sales.trend_items (selection type territory), with the country's name from catalogue.territories. ${SALES_NOTE}`,
    {
      day: DAY,
      territory_code: "Two-letter country code (catalogue.territories.code).",
      territory_name:
        "The country's name in catalogue.territories; null when the territory look-ups did not return it (see reported_name).",
      reported_name: REPORTED_NAME,
      streams: STREAMS,
      downloads: DOWNLOADS,
    },
  );

  await sql`
    create view analytics.daily_sales_by_product as
    select s.day, s.numeric_id as product_id, p.upc, p.title, s.reported_name, s.streams,
           s.downloads
      from (${dailySales("product")}) s
      left join catalogue.products p on p.product_id = s.numeric_id`.execute(db);
  await commentOnView(
    db,
    "analytics.daily_sales_by_product",
    `Streams and downloads per day and product (release), side by side, from sales.trend_items (selection type product), with the product's UPC and title from catalogue.products. ${SALES_NOTE}`,
    {
      day: DAY,
      product_id: "The product's id (catalogue.products.product_id).",
      upc: "The product's UPC or EAN in catalogue.products; null when the product is not in the catalogue (not found by the configured UPC look-ups).",
      title:
        "The product's title in catalogue.products; null when the product is not in the catalogue (see reported_name).",
      reported_name: REPORTED_NAME,
      streams: STREAMS,
      downloads: DOWNLOADS,
    },
  );

  await sql`
    create view analytics.asset_daily_streams as
    select s.day, s.numeric_id as asset_id, a.isrc, a.title, a.product_id, s.reported_name,
           s.streams, s.downloads
      from (${dailySales("asset")}) s
      left join catalogue.assets a on a.asset_id = s.numeric_id`.execute(db);
  await commentOnView(
    db,
    "analytics.asset_daily_streams",
    `Streams and downloads per day and asset (track), side by side, from sales.trend_items (selection type asset), with the track's ISRC and title from catalogue.assets. Sum over a range of days for the top tracks of a period (docs/warehouse.md has the query). ${SALES_NOTE}`,
    {
      day: DAY,
      asset_id: "The asset's id (catalogue.assets.asset_id).",
      isrc: "The track's ISRC in catalogue.assets; null when the asset is not in the catalogue.",
      title:
        "The track's title in catalogue.assets; null when the asset is not in the catalogue (see reported_name).",
      product_id:
        "The product the asset belongs to (catalogue.products.product_id); null when the asset is not in the catalogue.",
      reported_name: REPORTED_NAME,
      streams: STREAMS,
      downloads: DOWNLOADS,
    },
  );

  await sql`
    create view analytics.payouts_by_status as
    select status, currency, count(*)::bigint as payouts, sum(amount) as total_amount,
           sum(fees) as total_fees, sum(net_amount) as total_net_amount
      from royalties.payouts
     group by status, currency`.execute(db);
  await commentOnView(
    db,
    "analytics.payouts_by_status",
    "Payouts by current status and currency, from royalties.payouts: how many, and the exact sums of amounts, fees and net amounts. One row per (status, currency). A payout counts in its current status only; its past statuses are in royalties.payout_status_history.",
    {
      status: "The payouts' current status: pending, processing, paid, failed or cancelled.",
      currency: "Currency code of the sums, e.g. EUR (sums are never mixed across currencies).",
      payouts: "Number of payouts in that status and currency.",
      total_amount: "Sum of the amounts requested (exact, two decimals).",
      total_fees: "Sum of the fees (exact, two decimals).",
      total_net_amount: "Sum of the amounts paid out after fees (exact, two decimals).",
    },
  );

  await sql`
    create view analytics.artist_follower_growth as
    select artist_id, source, metric, day, value,
           case when lag(day) over w = day - 1 then value - lag(value) over w end as change,
           daily_diff as reported_change
      from artist_stats.platform_stats
     where metric in (${sql.join(FOLLOWER_METRICS.map((metric) => sql.lit(metric)))})
    window w as (partition by artist_id, source, metric order by day)`.execute(db);
  await commentOnView(
    db,
    "analytics.artist_follower_growth",
    `The audience series of each tracked artist on each platform, day by day, with the change against the previous day, from artist_stats.platform_stats where the metric counts an audience: ${FOLLOWER_METRICS.join(", ")}. One row per (artist_id, source, metric, day). The change is computed before any filter on day, so filtering a range keeps its first day's change.`,
    {
      artist_id:
        "The artist's social id (artist_stats.artists.artist_id; catalogue.artists.social_artist_id).",
      source:
        "The platform: music_streaming_1, music_streaming_2, social_1, social_2, social_3, video_channel, short_video, audio_sharing, concerts, live_streaming, ...",
      metric: `The audience metric: ${FOLLOWER_METRICS.join(", ")} (as the platform calls it).`,
      day: "The UTC day the value is for.",
      value: "The audience that day; null when the upstream sent none.",
      change:
        "value minus the previous day's value; null when the previous day is not stored or either value is null.",
      reported_change:
        "The change against the day before as the upstream reported it (daily_diff).",
    },
  );

  await sql`
    create view analytics.playlist_reach as
    select artist_id, snapshot_date, kind,
           coalesce(sum(current_placements), 0)::bigint as placements,
           count(*) filter (where current_placements > 0)::bigint as playlists,
           coalesce(sum(followers) filter (where current_placements > 0), 0)::bigint
             as playlist_followers,
           coalesce(sum(past_placements), 0)::bigint as past_placements
      from (
        select artist_id, snapshot_date, kind, platform, playlist_id,
               count(*) filter (where status <> 'past' and removed_at is null) as current_placements,
               count(*) filter (where status = 'past' or removed_at is not null) as past_placements,
               max(playlist_followers) as followers
          from artist_stats.playlist_placements
         group by artist_id, snapshot_date, kind, platform, playlist_id
      ) per_playlist
     group by artist_id, snapshot_date, kind`.execute(db);
  await commentOnView(
    db,
    "analytics.playlist_reach",
    "How many playlists carry each tracked artist's tracks, and how many followers those playlists have, per snapshot day and kind of playlist, from artist_stats.playlist_placements. One row per (artist_id, snapshot_date, kind). Counts current placements only (editorial current, curator not removed); past ones are counted apart.",
    {
      artist_id: "The artist's social id (artist_stats.artists.artist_id).",
      snapshot_date: "The day the placements were copied (the sync's run date, UTC).",
      kind: "editorial (made by the platform) or curator (made by a third party).",
      placements:
        "Current placements: one per (playlist, track), so a playlist with two of the artist's tracks counts twice.",
      playlists:
        "Distinct playlists (platform and playlist id) with at least one current placement.",
      playlist_followers:
        "Sum of the followers of those distinct playlists (each playlist counted once; playlist.followers in raw).",
      past_placements:
        "Placements the tracks were removed from (editorial past, or removed_at set).",
    },
  );

  await sql`
    create view analytics.stream_freshness as
    select stream, partitions, last_success_at, last_day,
           case
             when last_day is not null then (now() at time zone 'UTC')::date - 1 - last_day
             when last_success_at is not null
               then (now() at time zone 'UTC')::date - (last_success_at at time zone 'UTC')::date
           end as days_behind,
           failed_partitions, failed_partition_keys
      from (
        select stream,
               count(*)::integer as partitions,
               max(last_success_at) as last_success_at,
               max(case when checkpoint ->> 'day' ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}$'
                        then (checkpoint ->> 'day')::date end)
                 filter (where last_status = 'succeeded') as last_day,
               count(*) filter (where last_status = 'failed')::integer as failed_partitions,
               coalesce(array_agg(partition order by partition)
                          filter (where last_status = 'failed'), '{}') as failed_partition_keys
          from etl.stream_state
         group by stream
      ) per_stream`.execute(db);
  await commentOnView(
    db,
    "analytics.stream_freshness",
    "How fresh each stream is, as `etl status` shows it, from etl.stream_state: last success, the latest day synced (daily streams), days behind, and failed partitions. One row per stream that has run at least once. Readers need no access to the etl schema: the view reads it with its owner's rights.",
    {
      stream: "Stream name (e.g. trend_items; see docs/warehouse.md for the table each one fills).",
      partitions: "Partitions of the stream ever attempted.",
      last_success_at: "When a partition of the stream last synced completely.",
      last_day:
        "For daily streams (sales trends, radio, charts): the latest day a partition synced completely; null for the others.",
      days_behind:
        "Days behind: for daily streams, from last_day to yesterday (UTC), 0 when current; for the others, days since last_success_at (UTC); null when never successful.",
      failed_partitions: "Partitions whose last attempt failed (0 when all are fine).",
      failed_partition_keys: "Keys of those partitions, sorted (empty when none).",
    },
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop schema analytics cascade`.execute(db);
}
