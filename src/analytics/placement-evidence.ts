import { type Kysely, sql } from "kysely";
import { type Candidate, fieldName, roleValue } from "./role-candidates.js";
import type { Evidence } from "./role-evidence.js";
import type { Role } from "./roles.js";

/**
 * The API relates no figure of a playlist to another, so the data can only rule candidates out
 * and the field's name decides between those left: a follower count is a whole number of at least
 * 0 and one per playlist (the same on each of its placements: matched, of the playlists checked);
 * a removal time may be anything. A candidate whose name does not say the role is excluded. A
 * playlist, on one snapshot day, is its platform and the first part of a placement's key.
 */
export async function placementEvidence(
  db: Kysely<unknown>,
  role: Role,
  candidates: readonly Candidate[],
): Promise<Evidence> {
  const counted = role.values === "count";
  // Each candidate's value read once per placement (a text column's through its pattern), in a
  // step kept `materialized`: Postgres would otherwise fold it into the aggregates below, and
  // read the value again for each of theirs.
  const values = counted
    ? candidates.map((c, i) => sql`, ${roleValue(c, role.values)} as ${sql.ref(`v${i}`)}`)
    : [];
  // One value in a playlist is its least equal to its greatest: no sort of each playlist's
  // values, which count(distinct) would need.
  const perPlaylist = candidates.map((_, i) => {
    const v = sql.ref(`v${i}`);
    return counted
      ? sql`, count(${v}) > 0 and min(${v}) = max(${v}) and min(${v}) >= 0
              as ${sql.ref(`ok${i}`)}, count(${v}) > 0 as ${sql.ref(`any${i}`)}`
      : sql`, true as ${sql.ref(`ok${i}`)}, true as ${sql.ref(`any${i}`)}`;
  });
  const totals = candidates.map(
    (_, i) => sql`, count(*) filter (where ${sql.ref(`ok${i}`)})::integer as ${sql.ref(`m${i}`)},
                  count(*) filter (where ${sql.ref(`any${i}`)})::integer as ${sql.ref(`c${i}`)}`,
  );
  const { rows } = await sql<Record<string, number>>`
    with latest as (select max(snapshot_date) as day from artist_stats.playlist_placements),
    placements as materialized (
      select platform, split_part(playlist_key, '|', 1) as key_playlist ${sql.join(values, sql``)}
        from artist_stats.playlist_placements
       where snapshot_date = (select day from latest)),
    playlists as (
      select count(*) as placements ${sql.join(perPlaylist, sql``)}
        from placements
       group by platform, key_playlist)
    select coalesce(sum(placements), 0)::integer as rows ${sql.join(totals, sql``)}
      from playlists`.execute(db);
  const row = rows[0] ?? {};
  return {
    cases: "playlists",
    rows: Number(row.rows ?? 0),
    test: counted
      ? "playlists of the latest snapshot with one whole number of at least 0 in it, and a name that says the role"
      : "a name that says the role",
    candidates: candidates.map((candidate, i) => ({
      candidate,
      matched: Number(row[`m${i}`] ?? 0),
      checked: Number(row[`c${i}`] ?? 0),
      excluded: role.hint.test(fieldName(candidate.field))
        ? null
        : `its name does not say ${role.meaning}`,
    })),
  };
}
