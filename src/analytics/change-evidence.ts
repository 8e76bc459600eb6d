import { type Kysely, sql } from "kysely";
import { type Candidate, roleValue } from "./role-candidates.js";
import { DAYS_CHECKED, type Evidence } from "./role-evidence.js";

/**
 * Which point field is the upstream's own change against the day before: on the points whose
 * previous day is stored with a value, the one that equals the value less the previous one.
 * Checked are the points where the candidate holds a number.
 */
export async function changeEvidence(
  db: Kysely<unknown>,
  candidates: readonly Candidate[],
): Promise<Evidence> {
  const values = candidates.map((c, i) => sql`, ${roleValue(c, "number")} as ${sql.ref(`v${i}`)}`);
  const counts = candidates.map((_, i) => {
    const v = sql.ref(`v${i}`);
    return sql`, count(*) filter (where ${v} is not null)::integer as ${sql.ref(`c${i}`)},
               count(*) filter (where ${v} = value - previous)::integer as ${sql.ref(`m${i}`)}`;
  });
  const { rows } = await sql<Record<string, number>>`
    with latest as (select max(day) as day from artist_stats.platform_stats),
    points as (
      select day, value ${sql.join(values, sql``)},
             lag(day) over w as previous_day, lag(value) over w as previous
        from artist_stats.platform_stats
       where day > (select day from latest) - ${DAYS_CHECKED}::integer
      window w as (partition by artist_id, source, metric order by day))
    select (select count(*) from points)::integer as rows ${sql.join(counts, sql``)}
      from points
     where previous_day = day - 1 and value is not null and previous is not null`.execute(db);
  const row = rows[0] ?? {};
  return {
    cases: "points",
    rows: Number(row.rows ?? 0),
    test: "points where it equals the value less the day before's",
    candidates: candidates.map((candidate, i) => ({
      candidate,
      matched: Number(row[`m${i}`] ?? 0),
      checked: Number(row[`c${i}`] ?? 0),
      excluded: null,
    })),
  };
}
