import { type Kysely, sql } from "kysely";
import { commentOn } from "./support/comment-on.js";

const SOURCES = `'music_streaming_1', 'music_streaming_2', 'social_1', 'social_2', 'social_3', 'video_channel', 'video_artist', 'encyclopedia', 'concerts', 'audio_sharing', 'short_video', 'live_streaming'`;
const DOMAINS = `'social_3', 'short_video', 'video'`;
const AUDIENCE_TYPES = `'followers', 'likes', 'commenters'`;
const STATS_TYPES = `'country', 'city', 'interest', 'brand', 'language', 'stat', 'demographic'`;
const PLATFORMS = `'music_streaming_1', 'music_streaming_2', 'music_streaming_3', 'music_streaming_4', 'video'`;

const ARTIST_ID =
  "The artist's social id (the statistics API's artist id); artist_stats.artists.artist_id.";
const SNAPSHOT_DATE =
  "The day this copy was taken (the sync's run date, UTC). One copy per day is kept, so values can be trended over time.";
const MEASURED_AT = "When the upstream says the figures were measured (its timestp field).";
const RAW = "The upstream's record exactly as received, including fields not typed here.";
const SYNCED_AT = "When this row's content last changed (set on insert and on a real update only).";
const DOMAIN = "The platform the audience figures are about: social_3, short_video or video.";
const ISRC = "ISRC of the track; joins to catalogue.assets when the track is in the catalogue.";

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create schema if not exists artist_stats`.execute(db);
  await sql`comment on schema artist_stats is 'Artist statistics: social, streaming-platform, playlist, radio and chart figures of the tracked artists.'`.execute(
    db,
  );

  await sql`
    create table artist_stats.artists (
      artist_id bigint primary key,
      found_via text[] not null
        check (cardinality(found_via) > 0
          and found_via <@ array['config', 'streaming_id', 'catalogue_artist']),
      streaming_artist_ids text[] not null default '{}',
      catalogue_artist_ids bigint[] not null default '{}',
      raw jsonb not null,
      synced_at timestamptz not null default now()
    )`.execute(db);
  await commentOn(
    db,
    "artist_stats.artists",
    "The artists whose statistics are synced, one row per social artist id, with every way it was found. Every other artist_stats table is synced for exactly these artists. An artist no longer found any way is removed at the next sync; what was synced for it stays in the other tables.",
    {
      artist_id: "The artist's social id: the id every artist statistics table uses.",
      found_via:
        "Every way the artist was found: config (listed in social_artist_ids), streaming_id (a music_streaming_1 id in streaming_artist_ids resolved to it) and catalogue_artist (a catalogue artist linked to it). Filter with 'config' = any(found_via).",
      streaming_artist_ids:
        "The music_streaming_1 artist ids from the configuration that resolved to this artist; empty when not found that way.",
      catalogue_artist_ids:
        "The catalogue.artists.artist_id values linked to this artist; empty when not found that way.",
      raw: "The upstream's id look-up answers that resolved the artist, by streaming id; {} when it was found only through the configuration or the catalogue.",
      synced_at: SYNCED_AT,
    },
  );

  await sql`
    create table artist_stats.platform_stats (
      artist_id bigint not null,
      source text not null check (source in (${sql.raw(SOURCES)})),
      metric text not null,
      day date not null,
      value numeric,
      daily_diff numeric,
      interpolated boolean,
      raw jsonb not null,
      synced_at timestamptz not null default now(),
      primary key (artist_id, source, metric, day)
    )`.execute(db);
  await commentOn(
    db,
    "artist_stats.platform_stats",
    "Daily time series of each tracked artist on each platform (followers, listeners, views, ...). One row per (artist_id, source, metric, day). Re-synced over the last lookback_days days on each run, so restated values are corrected.",
    {
      artist_id: ARTIST_ID,
      source:
        "The platform the series comes from: music_streaming_1, music_streaming_2, social_1, social_2, social_3, video_channel, video_artist, encyclopedia, concerts, audio_sharing, short_video or live_streaming.",
      metric:
        "The metric's name as the upstream sends it (e.g. followers, popularity, listeners, fans, views). A metric the upstream renames appears under its new name from then on.",
      day: "The UTC day the value is for.",
      value: "The metric's value that day; null when the upstream sent none.",
      daily_diff: "Change against the day before, as reported; null when not reported.",
      interpolated: "True when the upstream filled the value in rather than measuring it.",
      raw: RAW,
      synced_at: SYNCED_AT,
    },
  );

  await sql`
    create table artist_stats.cm_stats (
      artist_id bigint not null,
      snapshot_date date not null,
      name text,
      cm_rank bigint,
      measured_at timestamptz,
      raw jsonb not null,
      synced_at timestamptz not null default now(),
      primary key (artist_id, snapshot_date)
    )`.execute(db);
  await commentOn(
    db,
    "artist_stats.cm_stats",
    "Daily copy of each tracked artist's summary on the analytics service: its rank and the latest value of every metric (in raw.stats, keyed <source>_<metric>). One row per (artist_id, snapshot_date).",
    {
      artist_id: ARTIST_ID,
      snapshot_date: SNAPSHOT_DATE,
      name: "The artist's name on the analytics service.",
      cm_rank: "The artist's overall rank on the analytics service (1 = first).",
      measured_at: MEASURED_AT,
      raw: RAW,
      synced_at: SYNCED_AT,
    },
  );

  await sql`
    create table artist_stats.urls (
      artist_id bigint not null,
      domain text not null,
      url text not null,
      raw jsonb not null,
      synced_at timestamptz not null default now(),
      primary key (artist_id, domain, url)
    )`.execute(db);
  await commentOn(
    db,
    "artist_stats.urls",
    "The artist's pages on each platform and its website, as currently listed: a url the upstream no longer lists is removed.",
    {
      artist_id: ARTIST_ID,
      domain: "What the url is for: a platform name (e.g. music_streaming_1) or website.",
      url: "The address.",
      raw: RAW,
      synced_at: SYNCED_AT,
    },
  );

  await sql`
    create table artist_stats.audience_stats (
      artist_id bigint not null,
      domain text not null check (domain in (${sql.raw(DOMAINS)})),
      snapshot_date date not null,
      followers bigint,
      engagement_rate numeric,
      avg_likes_per_post numeric,
      avg_comments_per_post numeric,
      measured_at timestamptz,
      raw jsonb not null,
      synced_at timestamptz not null default now(),
      primary key (artist_id, domain, snapshot_date)
    )`.execute(db);
  await commentOn(
    db,
    "artist_stats.audience_stats",
    "Daily copy of the artist's audience on social_3, short_video and video: followers, engagement, and in raw the top countries, top cities, genders and age groups. One row per (artist_id, domain, snapshot_date). A null means the figure was unavailable, never zero.",
    {
      artist_id: ARTIST_ID,
      domain: DOMAIN,
      snapshot_date: SNAPSHOT_DATE,
      followers: "Followers (subscribers for video) on that platform.",
      engagement_rate: "Engagement rate as a fraction (0.0345 = 3.45%).",
      avg_likes_per_post: "Average likes per post.",
      avg_comments_per_post: "Average comments per post.",
      measured_at: MEASURED_AT,
      raw: RAW,
      synced_at: SYNCED_AT,
    },
  );

  await sql`
    create table artist_stats.social_audience_stats (
      artist_id bigint not null,
      domain text not null check (domain in (${sql.raw(DOMAINS)})),
      audience_type text not null check (audience_type in (${sql.raw(AUDIENCE_TYPES)})),
      stats_type text not null check (stats_type in (${sql.raw(STATS_TYPES)})),
      snapshot_date date not null,
      position integer not null,
      code text,
      name text,
      value numeric,
      percent numeric,
      measured_at timestamptz,
      raw jsonb not null,
      synced_at timestamptz not null default now(),
      primary key (artist_id, domain, audience_type, stats_type, snapshot_date, position)
    )`.execute(db);
  await commentOn(
    db,
    "artist_stats.social_audience_stats",
    "Daily copy of the artist's audience broken down by country, city, interest, brand, language, statistic or demographic, for followers, likes and commenters on each platform. One row per entry, in the upstream's order (largest first).",
    {
      artist_id: ARTIST_ID,
      domain: DOMAIN,
      audience_type: "Whose audience: followers, likes or commenters.",
      stats_type:
        "What the breakdown is by: country, city, interest, brand, language, stat or demographic.",
      snapshot_date: SNAPSHOT_DATE,
      position: "The entry's place in the upstream's list, from 0 (largest first).",
      code: "Country or language code where the breakdown has one; null otherwise.",
      name: "The entry: a country, city, interest, brand, language, statistic or demographic group.",
      value: "The entry's figure, as reported.",
      percent: "The entry's share of the audience, in percent.",
      measured_at: MEASURED_AT,
      raw: RAW,
      synced_at: SYNCED_AT,
    },
  );

  await sql`
    create table artist_stats.video_market_coverage (
      artist_id bigint not null,
      snapshot_date date not null,
      total_views bigint,
      measured_at timestamptz,
      raw jsonb not null,
      synced_at timestamptz not null default now(),
      primary key (artist_id, snapshot_date)
    )`.execute(db);
  await commentOn(
    db,
    "artist_stats.video_market_coverage",
    "Daily copy of where the artist's videos are watched: total views, and views by market in raw.markets. One row per (artist_id, snapshot_date).",
    {
      artist_id: ARTIST_ID,
      snapshot_date: SNAPSHOT_DATE,
      total_views: "Video views in all markets.",
      measured_at: MEASURED_AT,
      raw: RAW,
      synced_at: SYNCED_AT,
    },
  );

  await sql`
    create table artist_stats.playlist_placements (
      artist_id bigint not null,
      kind text not null check (kind in ('editorial', 'curator')),
      platform text not null check (platform in (${sql.raw(PLATFORMS)})),
      status text not null check (status in ('current', 'past', 'all')),
      playlist_key text not null,
      snapshot_date date not null,
      playlist_id text,
      playlist_name text,
      owner_name text,
      playlist_followers bigint,
      position_in_playlist integer,
      peak_position_in_playlist integer,
      added_at timestamptz,
      removed_at timestamptz,
      track_id text,
      track_name text,
      isrc text,
      raw jsonb not null,
      synced_at timestamptz not null default now(),
      primary key (artist_id, kind, platform, status, playlist_key, snapshot_date)
    )`.execute(db);
  await sql`create index playlist_placements_isrc on artist_stats.playlist_placements (isrc)`.execute(
    db,
  );
  await commentOn(
    db,
    "artist_stats.playlist_placements",
    "Daily copy of the artist's tracks placed on playlists: editorial playlists (current and past placements) and curator playlists. One row per placement (playlist and track) per snapshot_date.",
    {
      artist_id: ARTIST_ID,
      kind: "editorial (made by the platform) or curator (made by a third party).",
      platform:
        "The platform of the playlist: music_streaming_1..4 or video (curator playlists: music_streaming_1..3).",
      status:
        "For editorial playlists, current (still on the playlist) or past (removed since). Always 'all' for curator playlists, which the upstream does not split by status.",
      playlist_key:
        "Identifies the placement: playlist id and track id joined by '|' (the track's ISRC when it has no id), since one playlist can hold several of the artist's tracks.",
      snapshot_date: SNAPSHOT_DATE,
      playlist_id: "The playlist's id on its platform.",
      playlist_name: "The playlist's name.",
      owner_name: "Who owns the playlist.",
      playlist_followers: "The playlist's followers.",
      position_in_playlist: "The track's current position in the playlist (1 = top).",
      peak_position_in_playlist: "The best position the track has reached in the playlist.",
      added_at: "When the track was added to the playlist.",
      removed_at: "When the track was removed from the playlist; null while it is still on it.",
      track_id: "The track's id on the platform.",
      track_name: "The track's name.",
      isrc: ISRC,
      raw: RAW,
      synced_at: SYNCED_AT,
    },
  );

  await sql`
    create table artist_stats.radio_airplays (
      artist_id bigint not null,
      snapshot_date date not null,
      position integer not null,
      station_name text,
      station_city text,
      station_country_code text,
      track_name text,
      isrc text,
      plays bigint,
      raw jsonb not null,
      synced_at timestamptz not null default now(),
      primary key (artist_id, snapshot_date, position)
    )`.execute(db);
  await commentOn(
    db,
    "artist_stats.radio_airplays",
    "Radio plays of the artist's tracks by station, per day. The upstream gives these rows no id (the same station and track can appear twice a day), so a day's rows are kept in the upstream's order and replaced as a whole when the day is synced again.",
    {
      artist_id: ARTIST_ID,
      snapshot_date: "The day the plays happened (the date asked of the upstream).",
      position: "The row's place in the upstream's list for that day, from 0.",
      station_name: "The radio station.",
      station_city: "The station's city.",
      station_country_code: "The station's country code.",
      track_name: "The track played.",
      isrc: ISRC,
      plays: "Times the track was played that day on that station.",
      raw: RAW,
      synced_at: SYNCED_AT,
    },
  );

  await sql`
    create table artist_stats.radio (
      artist_id bigint not null,
      snapshot_date date not null,
      position integer not null,
      station_name text,
      market text,
      format text,
      spins bigint,
      audience bigint,
      raw jsonb not null,
      synced_at timestamptz not null default now(),
      primary key (artist_id, snapshot_date, position)
    )`.execute(db);
  await commentOn(
    db,
    "artist_stats.radio",
    "Radio spins of the artist by station, per day, with the station's market, format and audience. Rows have no upstream id: a day's rows are kept in the upstream's order and replaced as a whole when the day is synced again.",
    {
      artist_id: ARTIST_ID,
      snapshot_date: "The day the spins happened (the date asked of the upstream).",
      position: "The row's place in the upstream's list for that day, from 0.",
      station_name: "The radio station.",
      market: "The station's market.",
      format: "The station's format (e.g. a music genre).",
      spins: "Spins of the artist on that station that day.",
      audience: "The station's audience, as reported.",
      raw: RAW,
      synced_at: SYNCED_AT,
    },
  );

  await sql`
    create table artist_stats.chart_entries (
      chart_date date not null,
      country_code text not null,
      genre text not null,
      rank integer not null,
      pre_rank integer,
      peak_rank integer,
      time_on_chart integer,
      artist_id bigint,
      artist_name text,
      track_name text,
      isrc text,
      raw jsonb not null,
      synced_at timestamptz not null default now(),
      primary key (chart_date, country_code, genre, rank)
    )`.execute(db);
  await sql`create index chart_entries_artist on artist_stats.chart_entries (artist_id, chart_date)`.execute(
    db,
  );
  await commentOn(
    db,
    "artist_stats.chart_entries",
    "The followed charts (configuration: charts), every entry of every day. One row per (chart_date, country_code, genre, rank); a day's chart replaces what was stored for it.",
    {
      chart_date: "The day of the chart.",
      country_code: "The chart's country (two-letter code) or GLOBAL.",
      genre: "The chart's genre, e.g. All Genres, Pop.",
      rank: "Position on the chart that day (1 = top).",
      pre_rank: "Position the day before; null for a new entry.",
      peak_rank: "Best position the track has reached on this chart.",
      time_on_chart: "Days the track has been on this chart, this day included.",
      artist_id:
        "The charting artist's social id; joins to artist_stats.artists when the artist is tracked.",
      artist_name: "The charting artist's name.",
      track_name: "The track's name.",
      isrc: ISRC,
      raw: RAW,
      synced_at: SYNCED_AT,
    },
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop schema artist_stats cascade`.execute(db);
}
