import { sql } from "kysely";
import type { AnalyticsObject } from "./analytics-object.js";
import type { ResolvedRoles } from "./resolved-roles.js";
import { PLACEMENT_REMOVED_AT, PLAYLIST_FOLLOWERS, REPORTED_CHANGE } from "./roles.js";

/** The platform_stats metrics that count an audience (rather than plays, views or a score). */
const FOLLOWER_METRICS = ["followers", "subscribers", "fans", "likes"];

const CHANGE = sql`case when lag(g.day) over w = g.day - 1 then g.value - lag(g.value) over w end`;

function followerGrowth(roles: ResolvedRoles): AnalyticsObject {
  return {
    name: "analytics.artist_follower_growth",
    kind: "view",
    definition: sql`
      select g.artist_id, g.source, g.metric, g.day, g.value, ${CHANGE} as change,
             coalesce(g.reported, ${CHANGE}) as reported_change, a.name as artist_name,
             g.reported is not null as change_reported
        from (select artist_id, source, metric, day, value,
                     ${roles.value(REPORTED_CHANGE)} as reported
                from artist_stats.platform_stats) g
        left join artist_stats.artists a on a.artist_id = g.artist_id
       where g.metric in (${sql.join(FOLLOWER_METRICS.map((m) => sql.lit(m)))})
      window w as (partition by g.artist_id, g.source, g.metric order by g.day)`,
    comment: `The audience series of each tracked artist on each platform, day by day, with the change against the previous day, from artist_stats.platform_stats where the metric counts an audience: ${FOLLOWER_METRICS.join(", ")}. One row per (artist_id, source, metric, day). The change is computed before any filter on day, so filtering a range keeps its first day's change.`,
    columns: {
      reported_change: `The change against the day before as the upstream reported it: ${roles.source(REPORTED_CHANGE)}; where the upstream sends none, the change computed from the values (as change; see change_reported).`,
      change_reported:
        "True when reported_change is the upstream's own; false when it sent none and it is computed from the values.",
    },
  };
}

function playlistReach(roles: ResolvedRoles): AnalyticsObject {
  const followers = roles.value(PLAYLIST_FOLLOWERS);
  const removedAt = roles.resolution(PLACEMENT_REMOVED_AT)?.column
    ? sql`${roles.value(PLACEMENT_REMOVED_AT)} is not null`
    : sql`false`;
  // Null, not 0, when no column carries the followers: unknown, not none.
  const followersSum = roles.resolution(PLAYLIST_FOLLOWERS)?.column
    ? sql`coalesce(sum(followers) filter (where current_placements > 0), 0)::bigint`
    : sql`null::bigint`;
  return {
    name: "analytics.playlist_reach",
    kind: "view",
    definition: sql`
      select r.artist_id, r.snapshot_date, r.kind, r.placements, r.playlists,
             r.playlist_followers, r.past_placements, a.name as artist_name
        from (
          select artist_id, snapshot_date, kind,
                 coalesce(sum(current_placements), 0)::bigint as placements,
                 count(*) filter (where current_placements > 0) as playlists,
                 ${followersSum} as playlist_followers,
                 coalesce(sum(past_placements), 0)::bigint as past_placements
            from (
              select artist_id, snapshot_date, kind, platform, split_part(playlist_key, '|', 1),
                     count(*) filter (where status <> 'past' and not removed) as current_placements,
                     count(*) filter (where status = 'past' or removed) as past_placements,
                     max(followers) as followers
                from (select artist_id, snapshot_date, kind, platform, status, playlist_key,
                             ${removedAt} as removed, ${followers} as followers
                        from artist_stats.playlist_placements) p
               group by 1, 2, 3, 4, 5
            ) per_playlist
           group by artist_id, snapshot_date, kind
        ) r
        left join artist_stats.artists a on a.artist_id = r.artist_id`,
    comment:
      "How many playlists carry each tracked artist's tracks, and how many followers those playlists have, per snapshot day and kind of playlist, from artist_stats.playlist_placements. One row per (artist_id, snapshot_date, kind). Counts current placements only (editorial current, curator not removed); past ones are counted apart.",
    columns: {
      playlist_followers: `Sum of the followers of the distinct playlists with a current placement (each playlist counted once): ${roles.source(PLAYLIST_FOLLOWERS)}.`,
      past_placements: `Placements the tracks were removed from: editorial past, or a removal time set (${roles.source(PLACEMENT_REMOVED_AT)}).`,
    },
  };
}

/** The artist statistics views, built from the roles. */
export function artistViews(roles: ResolvedRoles): AnalyticsObject[] {
  return [followerGrowth(roles), playlistReach(roles)];
}
