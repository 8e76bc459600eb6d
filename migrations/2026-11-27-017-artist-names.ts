import { type Kysely, sql } from "kysely";
import { commentOnView } from "./support/comment-on-view.js";

/**
 * The tracked artists' names, in artist_stats.artists and in the views keyed by a statistics
 * artist, which showed ids only. Only adds: a nullable column an older worker leaves as it is,
 * and a column at the end of each view (CREATE OR REPLACE keeps the views' grants).
 */

const NAME =
  "The artist's name: as the artist statistics API gives it (in the /artist-id answer that resolved a streaming id, or in the /cm-stats answer asked for an artist no catalogue artist names), else the name of the catalogue artist linked to it (the lowest catalogue id with a name). Null when neither gives one (an artist the statistics API does not know and the catalogue does not name), and until the first sync after this column was added.";
const ARTIST_NAME =
  "The artist's name (artist_stats.artists.name); null for an artist no longer tracked, or one without a name there.";

function followerGrowth(withName: boolean) {
  return sql`
    select g.artist_id, g.source, g.metric, g.day, g.value,
           case when lag(g.day) over w = g.day - 1 then g.value - lag(g.value) over w end as change,
           g.daily_diff as reported_change${withName ? sql`, a.name as artist_name` : sql``}
      from artist_stats.platform_stats g
      ${withName ? sql`left join artist_stats.artists a on a.artist_id = g.artist_id` : sql``}
     where g.metric in ('followers', 'subscribers', 'fans', 'likes')
    window w as (partition by g.artist_id, g.source, g.metric order by g.day)`;
}

function playlistReach(withName: boolean) {
  return sql`
    select r.artist_id, r.snapshot_date, r.kind, r.placements, r.playlists,
           r.playlist_followers, r.past_placements${withName ? sql`, a.name as artist_name` : sql``}
      from (
        select artist_id, snapshot_date, kind,
               coalesce(sum(current_placements), 0)::bigint as placements,
               count(*) filter (where current_placements > 0)::bigint as playlists,
               coalesce(sum(followers) filter (where current_placements > 0), 0)::bigint
                 as playlist_followers,
               coalesce(sum(past_placements), 0)::bigint as past_placements
          from (
            select artist_id, snapshot_date, kind, platform, playlist_id,
                   count(*) filter (where status <> 'past' and removed_at is null)
                     as current_placements,
                   count(*) filter (where status = 'past' or removed_at is not null)
                     as past_placements,
                   max(playlist_followers) as followers
              from artist_stats.playlist_placements
             group by artist_id, snapshot_date, kind, platform, playlist_id
          ) per_playlist
         group by artist_id, snapshot_date, kind
      ) r
      ${withName ? sql`left join artist_stats.artists a on a.artist_id = r.artist_id` : sql``}`;
}

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
  reported_change: "The change against the day before as the upstream reported it (daily_diff).",
};

const PLAYLIST_REACH_COLUMNS = {
  artist_id: "The artist's social id (artist_stats.artists.artist_id).",
  snapshot_date: "The day the placements were copied (the sync's run date, UTC).",
  kind: "editorial (made by the platform) or curator (made by a third party).",
  placements:
    "Current placements: one per (playlist, track), so a playlist with two of the artist's tracks counts twice.",
  playlists: "Distinct playlists (platform and playlist id) with at least one current placement.",
  playlist_followers:
    "Sum of the followers of those distinct playlists (each playlist counted once; playlist.followers in raw).",
  past_placements: "Placements the tracks were removed from (editorial past, or removed_at set).",
};

const FOLLOWER_GROWTH =
  "The audience series of each tracked artist on each platform, day by day, with the change against the previous day, from artist_stats.platform_stats where the metric counts an audience: followers, subscribers, fans, likes. One row per (artist_id, source, metric, day). The change is computed before any filter on day, so filtering a range keeps its first day's change.";
const PLAYLIST_REACH =
  "How many playlists carry each tracked artist's tracks, and how many followers those playlists have, per snapshot day and kind of playlist, from artist_stats.playlist_placements. One row per (artist_id, snapshot_date, kind). Counts current placements only (editorial current, curator not removed); past ones are counted apart.";

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table artist_stats.artists add column name text`.execute(db);
  await sql`comment on column artist_stats.artists.name is ${sql.lit(NAME)}`.execute(db);

  await sql`create or replace view analytics.artist_follower_growth as ${followerGrowth(true)}`.execute(
    db,
  );
  await commentOnView(
    db,
    "analytics.artist_follower_growth",
    `${FOLLOWER_GROWTH} With the artist's name from artist_stats.artists.`,
    { ...FOLLOWER_GROWTH_COLUMNS, artist_name: ARTIST_NAME },
  );

  await sql`create or replace view analytics.playlist_reach as ${playlistReach(true)}`.execute(db);
  await commentOnView(
    db,
    "analytics.playlist_reach",
    `${PLAYLIST_REACH} With the artist's name from artist_stats.artists.`,
    { ...PLAYLIST_REACH_COLUMNS, artist_name: ARTIST_NAME },
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  // A view's columns cannot be removed in place; the comments and grants go with it.
  await sql`drop view analytics.artist_follower_growth, analytics.playlist_reach`.execute(db);
  await sql`create view analytics.artist_follower_growth as ${followerGrowth(false)}`.execute(db);
  await commentOnView(
    db,
    "analytics.artist_follower_growth",
    FOLLOWER_GROWTH,
    FOLLOWER_GROWTH_COLUMNS,
  );
  await sql`create view analytics.playlist_reach as ${playlistReach(false)}`.execute(db);
  await commentOnView(db, "analytics.playlist_reach", PLAYLIST_REACH, PLAYLIST_REACH_COLUMNS);
  await sql`alter table artist_stats.artists drop column name`.execute(db);
}
