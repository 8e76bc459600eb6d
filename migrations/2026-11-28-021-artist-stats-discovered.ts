import { type Kysely, sql } from "kysely";
import { commentOnView } from "./support/comment-on-view.js";

/**
 * The artist statistics tables keep typed columns for their keys alone: the spec shows none of
 * their payloads' fields, and the columns named by our guesses stayed null against upstreams that
 * name them otherwise. Every field is a discovered column now (migration 020), named as the
 * upstream names it, added and filled from each row's `raw` (every stored row, whatever its day)
 * by the next sync or `etl replay`; until then, the values are in `raw`. The two views that read
 * an unshown field take it from `raw` by the name they document.
 */

/** The columns each table declared from a guess of the upstream's field names. */
const GUESSED: Readonly<Record<string, readonly string[]>> = {
  "artist_stats.audience_stats": [
    "followers",
    "engagement_rate",
    "avg_likes_per_post",
    "avg_comments_per_post",
    "measured_at",
  ],
  "artist_stats.chart_entries": [
    "pre_rank",
    "peak_rank",
    "time_on_chart",
    "artist_id",
    "artist_name",
    "track_name",
    "isrc",
  ],
  "artist_stats.cm_stats": ["name", "cm_rank", "measured_at"],
  "artist_stats.platform_stats": ["daily_diff", "interpolated"],
  "artist_stats.playlist_placements": [
    "playlist_id",
    "playlist_name",
    "owner_name",
    "playlist_followers",
    "position_in_playlist",
    "peak_position_in_playlist",
    "added_at",
    "removed_at",
    "track_id",
    "track_name",
    "isrc",
  ],
  "artist_stats.radio": ["station_name", "market", "format", "spins", "audience"],
  "artist_stats.radio_airplays": [
    "station_name",
    "station_city",
    "station_country_code",
    "track_name",
    "isrc",
    "plays",
  ],
  "artist_stats.social_audience_stats": ["code", "name", "value", "percent", "measured_at"],
  "artist_stats.video_market_coverage": [
    "total_views",
    "measured_at",
    "market_code",
    "market_name",
    "views",
    "share",
  ],
};

/** A number of `raw` at a path, or null: a view never fails on what an upstream sends. */
const numberAt = (path: string) =>
  sql`case when jsonb_typeof(raw #> ${sql.lit(path)}) = 'number'
           then (raw #>> ${sql.lit(path)})::numeric end`;

const FOLLOWER_GROWTH = sql`
  select g.artist_id, g.source, g.metric, g.day, g.value,
         case when lag(g.day) over w = g.day - 1 then g.value - lag(g.value) over w end as change,
         g.reported_change, a.name as artist_name
    from (select artist_id, source, metric, day, value,
                 ${numberAt("{daily_diff}")} as reported_change
            from artist_stats.platform_stats) g
    left join artist_stats.artists a on a.artist_id = g.artist_id
   where g.metric in ('followers', 'subscribers', 'fans', 'likes')
  window w as (partition by g.artist_id, g.source, g.metric order by g.day)`;

const PLAYLIST_REACH = sql`
  select r.artist_id, r.snapshot_date, r.kind, r.placements, r.playlists,
         r.playlist_followers, r.past_placements, a.name as artist_name
    from (
      select artist_id, snapshot_date, kind,
             coalesce(sum(current_placements), 0)::bigint as placements,
             count(*) filter (where current_placements > 0)::bigint as playlists,
             coalesce(sum(followers) filter (where current_placements > 0), 0)::bigint
               as playlist_followers,
             coalesce(sum(past_placements), 0)::bigint as past_placements
        from (
          select artist_id, snapshot_date, kind, platform, split_part(playlist_key, '|', 1),
                 count(*) filter (where status <> 'past' and not removed) as current_placements,
                 count(*) filter (where status = 'past' or removed) as past_placements,
                 max(followers) as followers
            from (select artist_id, snapshot_date, kind, platform, status, playlist_key,
                         coalesce(raw #> '{playlist,removed_at}', 'null') <> 'null' as removed,
                         ${numberAt("{playlist,followers}")} as followers
                    from artist_stats.playlist_placements) p
           group by artist_id, snapshot_date, kind, platform, split_part(playlist_key, '|', 1)
        ) per_playlist
       group by artist_id, snapshot_date, kind
    ) r
    left join artist_stats.artists a on a.artist_id = r.artist_id`;

const ARTIST_NAME =
  "The artist's name (artist_stats.artists.name); null for an artist no longer tracked, or one without a name there.";

const FOLLOWER_GROWTH_COMMENT =
  "The audience series of each tracked artist on each platform, day by day, with the change against the previous day, from artist_stats.platform_stats where the metric counts an audience: followers, subscribers, fans, likes. One row per (artist_id, source, metric, day). The change is computed before any filter on day, so filtering a range keeps its first day's change. With the artist's name from artist_stats.artists.";
const FOLLOWER_GROWTH_COLUMNS = {
  artist_id:
    "The artist's social id (artist_stats.artists.artist_id; catalogue.artists.social_artist_id).",
  source:
    "The platform: music_streaming_1, music_streaming_2, social_1, social_2, social_3, video_channel, short_video, audio_sharing, concerts, live_streaming, ...",
  metric: "The audience metric: followers, subscribers, fans, likes (as the platform calls it).",
  day: "The UTC day the value is for.",
  value: "The audience that day; null when the upstream sent none.",
  change:
    "value minus the previous day's value; null when the previous day is not stored or either value is null.",
  reported_change:
    "The change against the day before as the upstream reported it: the point's daily_diff in raw (a field the spec does not show); null when the upstream sends no number by that name.",
  artist_name: ARTIST_NAME,
};

const PLAYLIST_REACH_COMMENT =
  "How many playlists carry each tracked artist's tracks, and how many followers those playlists have, per snapshot day and kind of playlist, from artist_stats.playlist_placements. One row per (artist_id, snapshot_date, kind). Counts current placements only (editorial current, and not removed); past ones are counted apart. Placements and playlists come from the key (playlist_key: playlist id and track id); followers and removal from the entry's playlist.followers and playlist.removed_at in raw, fields the spec does not show. With the artist's name from artist_stats.artists.";
const PLAYLIST_REACH_COLUMNS = {
  artist_id: "The artist's social id (artist_stats.artists.artist_id).",
  snapshot_date: "The day the placements were copied (the sync's run date, UTC).",
  kind: "editorial (made by the platform) or curator (made by a third party).",
  placements:
    "Current placements: one per (playlist, track), so a playlist with two of the artist's tracks counts twice.",
  playlists: "Distinct playlists (platform and playlist id) with at least one current placement.",
  playlist_followers:
    "Sum of the followers of those distinct playlists (each playlist counted once): playlist.followers in raw; 0 when the upstream sends no number by that name.",
  past_placements:
    "Placements the tracks were removed from (editorial past, or playlist.removed_at set in raw).",
  artist_name: ARTIST_NAME,
};

/**
 * analytics.join_paths without its chart entries' artist_id: the chart names the artist in a
 * discovered column whose name is the upstream's. The view is replaced by its own definition
 * filtered (its other rows, columns, comments and grants stay).
 */
async function withoutChartArtistPath(db: Kysely<unknown>): Promise<void> {
  const { rows } = await sql<{ definition: string }>`
    select pg_get_viewdef('analytics.join_paths'::regclass) as definition`.execute(db);
  const definition = (rows[0]?.definition ?? "").trim().replace(/;$/, "");
  await sql`create or replace view analytics.join_paths as
    select * from (${sql.raw(definition)}) paths
     where not (from_table = 'artist_stats.chart_entries' and from_columns = 'artist_id')`.execute(
    db,
  );
}

export async function up(db: Kysely<unknown>): Promise<void> {
  // The views read columns this migration drops: made again over raw (the reader role's default
  // privileges grant the new ones).
  await sql`drop view analytics.artist_follower_growth, analytics.playlist_reach`.execute(db);
  await withoutChartArtistPath(db);
  for (const [table, columns] of Object.entries(GUESSED)) {
    await sql`alter table ${sql.table(table)} ${sql.join(
      columns.map((column) => sql`drop column ${sql.ref(column)}`),
    )}`.execute(db);
  }
  await sql`create view analytics.artist_follower_growth as ${FOLLOWER_GROWTH}`.execute(db);
  await commentOnView(
    db,
    "analytics.artist_follower_growth",
    FOLLOWER_GROWTH_COMMENT,
    FOLLOWER_GROWTH_COLUMNS,
  );
  await sql`create view analytics.playlist_reach as ${PLAYLIST_REACH}`.execute(db);
  await commentOnView(
    db,
    "analytics.playlist_reach",
    PLAYLIST_REACH_COMMENT,
    PLAYLIST_REACH_COLUMNS,
  );
}

export function down(): Promise<void> {
  // The dropped columns' values are in raw, and in the discovered columns made since: a guessed
  // column brought back would be empty, and would hide nothing but the upstream's own names.
  return Promise.reject(new Error("2026-11-28-021-artist-stats-discovered cannot be undone"));
}
