import { type Kysely, sql } from "kysely";
import { type Candidate, roleValue } from "./role-candidates.js";
import { DAYS_CHECKED, type Evidence } from "./role-evidence.js";

/**
 * Which item field adds up to the day's totals: the API says a complete day's list sums to that
 * day's totals for its selection and sale type (and the chart's Total says it again where the
 * totals are not held). A day is checked where a reference is held and is not 0; a candidate
 * matches it when every item has a whole number in it and their sum is the reference, exactly.
 * The latest DAYS_CHECKED days of the scope are read.
 */
export async function unitsEvidence(
  db: Kysely<unknown>,
  scope: string,
  candidates: readonly Candidate[],
): Promise<Evidence> {
  const [selection, sale] = scope.split(".") as [string, string];
  const totalColumn = sql.ref(sale === "stream" ? "t.stream_count" : "t.download_count");
  const sums = candidates.map(
    (candidate, i) =>
      sql`sum(${roleValue(candidate, "count")}) as ${sql.ref(`s${i}`)},
          count(${roleValue(candidate, "count")}) as ${sql.ref(`n${i}`)}`,
  );
  const matches = candidates.map(
    (_, i) =>
      sql`count(*) filter (where l.${sql.ref(`n${i}`)} = l.items
                             and l.${sql.ref(`s${i}`)} = r.reference)::integer
            as ${sql.ref(`m${i}`)}`,
  );
  const { rows } = await sql<Record<string, number>>`
    with latest as (
      select max(day) as day from sales.trend_items
       where selection_type = ${selection} and sale_type = ${sale}),
    lists as (
      select day, count(*) as items ${sql.join(
        sums.map((s) => sql`, ${s}`),
        sql``,
      )}
        from sales.trend_items
       where selection_type = ${selection} and sale_type = ${sale}
         and day > (select day from latest) - ${DAYS_CHECKED}::integer
       group by day),
    refs as (
      select l.day, coalesce(${totalColumn}, c.total) as reference
        from lists l
        left join sales.trend_totals t on t.day = l.day and t.selection_type = ${selection}
        left join sales.trend_chart_points c
          on c.day = l.day and c.selection_type = ${selection} and c.sale_type = ${sale}
         and lower(c.series) = 'total')
    select (select coalesce(sum(items), 0) from lists)::integer as rows,
           count(*) filter (where r.reference <> 0)::integer as checked
           ${sql.join(
             matches.map((m) => sql`, ${m}`),
             sql``,
           )}
      from lists l join refs r on r.day = l.day and r.reference <> 0`.execute(db);
  const row = rows[0] ?? {};
  const checked = Number(row.checked ?? 0);
  return {
    cases: "days",
    rows: Number(row.rows ?? 0),
    test: `days whose complete list adds up exactly to the day's ${sale}s in the totals (or the chart's Total)`,
    candidates: candidates.map((candidate, i) => ({
      candidate,
      matched: Number(row[`m${i}`] ?? 0),
      checked,
      excluded: null,
    })),
  };
}
